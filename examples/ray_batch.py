#!/usr/bin/env python3
"""Run a `raterlab batch export` through a Ray Data pipeline and write what
`raterlab batch ingest` reads: one {custom_id, generated_text} row per request.

    raterlab batch export --model qwen2.5-coder-0.5b-instruct ... --out batch/
    python3 examples/ray_batch.py --input batch/ --output results/ \
        --endpoint http://127.0.0.1:8080/v1          # any OpenAI-compatible server
    raterlab batch ingest results/ --manifest batch/manifest.json
    raterlab calibrate --offline --model qwen2.5-coder-0.5b-instruct ...   # same plan

Engines:
  --engine http   (default) each request is POSTed to an OpenAI-compatible endpoint
                  from a map_batches stage; runs anywhere Ray runs, CPU only is fine.
  --engine vllm   Ray Data's vLLM processor (ray.data.llm) runs the model inside the
                  pipeline on the cluster's GPUs; needs `pip install "ray[data,llm]"`
                  (vLLM) and GPUs, so it is not run in raterlab's CI.

Requests that fail are written with generated_text null; `batch ingest` counts them as
failed and the next `batch export` writes them again.
"""

import argparse
import glob
import json
import os
import urllib.error
import urllib.request

import ray


def plain(value):
    """Arrow/pandas values (numpy arrays of dicts, numpy scalars) as JSON-ready Python."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if v is not None}
    if hasattr(value, "tolist"):
        return plain(value.tolist())
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


class PostToJudge:
    """A map_batches stage: one chat-completions call per request line."""

    def __init__(self, endpoint, api_key, timeout):
        self.url = endpoint.rstrip("/") + "/chat/completions"
        self.headers = {"Content-Type": "application/json"}
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"
        self.timeout = timeout

    def complete(self, body):
        request = urllib.request.Request(
            self.url, data=json.dumps(body).encode(), headers=self.headers
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as reply:
                answer = json.load(reply)
            return answer["choices"][0]["message"]["content"]
        except (urllib.error.URLError, TimeoutError, KeyError, ValueError) as e:
            print(f"request failed: {e}")
            return None

    def __call__(self, batch):
        texts = [self.complete(plain(body)) for body in batch["body"]]
        return {"custom_id": list(batch["custom_id"]), "generated_text": texts}


def vllm_processor(model):
    """Ray Data's vLLM engine stage (GPU clusters)."""
    from ray.data.llm import build_llm_processor, vLLMEngineProcessorConfig

    config = vLLMEngineProcessorConfig(
        model_source=model,
        engine_kwargs={"max_model_len": 8192},
        concurrency=1,
        batch_size=64,
    )

    def preprocess(row):
        body = plain(row["body"])
        sampling = {
            "temperature": body.get("temperature", 0.0),
            "max_tokens": body.get("max_tokens", 1024),
        }
        if "seed" in body:
            sampling["seed"] = body["seed"]
        return {"messages": body["messages"], "sampling_params": sampling}

    def postprocess(row):
        return {"custom_id": row["custom_id"], "generated_text": row["generated_text"]}

    return build_llm_processor(config, preprocess=preprocess, postprocess=postprocess)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", required=True, help="the export folder (or one shard file)")
    parser.add_argument("--output", required=True, help="folder for the result files")
    parser.add_argument("--engine", choices=["http", "vllm"], default="http")
    parser.add_argument("--endpoint", default="http://127.0.0.1:8080/v1")
    parser.add_argument("--api-key-env", default="OPENAI_API_KEY")
    parser.add_argument("--model", help="--engine vllm: the model to load")
    parser.add_argument("--concurrency", type=int, default=1,
                        help="--engine http: parallel callers (the server's slots)")
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()

    if os.path.isdir(args.input):
        shards = sorted(
            p for p in glob.glob(os.path.join(args.input, "*.jsonl"))
        )
    else:
        shards = [args.input]
    if not shards:
        parser.error(f"no .jsonl shard in {args.input}")

    ray.init(include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    requests = ray.data.read_json(shards, lines=True)
    if args.engine == "vllm":
        if not args.model:
            parser.error("--engine vllm needs --model")
        results = vllm_processor(args.model)(requests)
    else:
        results = requests.map_batches(
            PostToJudge,
            fn_constructor_kwargs={
                "endpoint": args.endpoint,
                "api_key": os.environ.get(args.api_key_env),
                "timeout": args.timeout,
            },
            batch_size=8,
            concurrency=args.concurrency,
            batch_format="numpy",
        )
    results.select_columns(["custom_id", "generated_text"]).write_json(args.output)
    print(f"wrote results for {len(shards)} shard(s) to {args.output}")


if __name__ == "__main__":
    main()
