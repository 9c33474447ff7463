#!/usr/bin/env python3
"""Does the order of calls matter to a local llama.cpp server? It keeps the KV cache of the
previous request and reuses the longest common token prefix, so a pair's self-consistency
samples (the same prompt) and its two orders (the same instruction, the responses swapped)
cost less prompt processing when they run back to back.

Sends the same calls to a server on 127.0.0.1 in two orders and prints wall times and their
ratio, alternating the orders so neither always runs on a warm server:
- grouped: raterlab's order (configuration, then pair, then order, then sample);
- spread: sample-major (every item's first sample, then every item's second ...).

    scripts/llama-judge serve &   # or MODEL=qwen scripts/llama-judge serve &
    python3 benches/kv_prefix_order.py --model smollm2-135m-instruct --pairs 5 --samples 3
"""
import argparse, json, subprocess, sys, tempfile, time, urllib.request


def items(pairs, data):
    out = tempfile.mktemp(suffix=".jsonl")
    subprocess.run(["cargo", "run", "--quiet", "--", "data", "export", "--data", data, "--subset",
                    "llmbar-natural", "--limit", str(pairs), "--both-orders", "--out", out], check=True)
    return [json.loads(line) for line in open(out)]


def template(name):
    text = subprocess.run(["cargo", "run", "--quiet", "--", "prompts", "show", name, "--toml"],
                          check=True, capture_output=True, text=True).stdout
    body = text.split("template = '''\n", 1)[1].rsplit("'''", 1)[0]
    return body


def call(endpoint, model, content, seed):
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": content}],
                       "temperature": 1.0, "max_tokens": 16, "seed": seed}).encode()
    req = urllib.request.Request(endpoint + "/chat/completions", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=300) as r:
        json.load(r)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--endpoint", default="http://127.0.0.1:8080/v1")
    ap.add_argument("--model", required=True)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--samples", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--data", default="../shared/data/llmbar/llmbar-reward-bench-schema.parquet")
    a = ap.parse_args()
    if not a.endpoint.startswith(("http://127.0.0.1", "http://localhost")):
        sys.exit("this benchmark only talks to a server on this machine")
    tpl = template("simple_with_tie")
    prompts = [tpl.replace("{prompt}", i["prompt"]).replace("{response1}", i["response1"])
               .replace("{response2}", i["response2"]) for i in items(a.pairs, a.data)]
    grouped = [(p, s) for p in prompts for s in range(a.samples)]
    spread = [(p, s) for s in range(a.samples) for p in prompts]
    times = {"grouped": [], "spread": []}
    for r in range(a.rounds):
        for name, calls in (("spread", spread), ("grouped", grouped)) if r % 2 == 0 else (("grouped", grouped), ("spread", spread)):
            start = time.perf_counter()
            for k, (p, s) in enumerate(calls):
                call(a.endpoint, a.model, p, 1000 * r + s)
            times[name].append(time.perf_counter() - start)
            print(f"round {r + 1} {name:8} {len(calls)} calls {times[name][-1]:7.1f} s", flush=True)
    g, s = sum(times["grouped"]), sum(times["spread"])
    print(f"grouped {g:.1f} s, spread {s:.1f} s: spread / grouped = {s / g:.2f}x")


if __name__ == "__main__":
    main()
