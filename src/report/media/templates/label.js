"use strict";
// raterlab label: one item at a time, labelled by key. Every text is put into the page with
// textContent (markdown and code blocks become elements, never markup), and the token goes
// only to this page's own server, in a header.
(function () {
  var params = new URLSearchParams(location.search);
  var token = params.get("token") || "";
  var annotator = params.get("annotator");
  var $ = function (id) { return document.getElementById(id); };
  var item = null, shownAt = 0, busy = false, keyAt = null, guidesShown = false;
  window.raterlabTimings = [];

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  // Inline markdown: `code`, **bold**, *emphasis*; everything else is text.
  function inline(parent, text) {
    var re = /(`[^`\n]+`|\*\*[^*\n]+\*\*|\*[^*\n]+\*)/g, last = 0, m;
    while ((m = re.exec(text)) !== null) {
      if (m.index > last) parent.appendChild(document.createTextNode(text.slice(last, m.index)));
      var t = m[0];
      if (t[0] === "`") parent.appendChild(el("code", t.slice(1, -1)));
      else if (t.slice(0, 2) === "**") parent.appendChild(el("strong", t.slice(2, -2)));
      else parent.appendChild(el("em", t.slice(1, -1)));
      last = m.index + t.length;
    }
    if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
  }

  // Block markdown: fenced code, headings, lists, paragraphs.
  function markdown(container, text) {
    container.replaceChildren();
    var lines = String(text).split("\n"), i = 0, para = [];
    function flush() {
      if (para.length) { var p = el("p"); inline(p, para.join("\n")); container.appendChild(p); para = []; }
    }
    while (i < lines.length) {
      var line = lines[i], fence = line.match(/^\s*(```+|~~~+)/);
      if (fence) {
        flush();
        var code = [];
        i++;
        while (i < lines.length && lines[i].trim().indexOf(fence[1]) !== 0) { code.push(lines[i]); i++; }
        i++;
        var pre = el("pre"); pre.appendChild(el("code", code.join("\n"))); container.appendChild(pre);
        continue;
      }
      var h = line.match(/^(#{1,6})\s+(.*)$/);
      if (h) { flush(); var hx = el("h" + Math.min(6, h[1].length + 2)); inline(hx, h[2]); container.appendChild(hx); i++; continue; }
      var li = line.match(/^\s*([-*+]|\d+[.)])\s+(.*)$/);
      if (li) {
        flush();
        var list = el(/\d/.test(li[1]) ? "ol" : "ul");
        while (i < lines.length && (li = lines[i].match(/^\s*([-*+]|\d+[.)])\s+(.*)$/))) {
          var entry = el("li"); inline(entry, li[2]); list.appendChild(entry); i++;
        }
        container.appendChild(list);
        continue;
      }
      if (line.trim() === "") flush(); else para.push(line);
      i++;
    }
    flush();
  }

  function status(text, error) {
    var s = $("status");
    s.textContent = text;
    s.className = error ? "status error" : "status";
  }

  function call(method, path, body) {
    var url = path + (method === "GET" && annotator ? "?annotator=" + encodeURIComponent(annotator) : "");
    var init = { method: method, headers: { "Authorization": "Bearer " + token }, cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer" };
    if (body) {
      if (annotator) body.annotator = annotator;
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(url, init).then(function (r) {
      if (!r.ok) return r.text().then(function (t) { throw new Error(r.status + ": " + t); });
      return r.json();
    });
  }

  function show(state) {
    var p = state.progress;
    var pace = p.seconds_per_item === null ? "" : " · " + p.seconds_per_item.toFixed(1) + " s per item";
    $("progress").textContent = state.annotator + ": " + p.labelled + " labelled · " + p.left + " left of " + p.total + pace +
      " · " + p.complete + " of " + p.total + " items have " + state.overlap + " label" + (state.overlap === 1 ? "" : "s");
    var est = state.status;
    document.body.dataset.enough = est && est.enough ? "true" : "false";
    if (est) {
      $("estimate").hidden = false;
      $("estimate").className = "estimate" + (est.enough ? " enough" : "");
      $("estimate-stage").textContent = est.stage + ":";
      $("estimate-text").textContent = est.text;
      var iv = est.interval;
      $("estimate-track").hidden = !iv;
      if (iv) {
        var pct = function (v) { return (100 * Math.min(1, Math.max(0, v))).toFixed(2) + "%"; };
        $("estimate-band").style.left = pct(iv[1]);
        $("estimate-band").style.width = (100 * Math.max(0, Math.min(1, iv[2]) - Math.max(0, iv[1]))).toFixed(2) + "%";
        $("estimate-point").style.left = pct(iv[0]);
      }
    } else {
      $("estimate").hidden = true;
    }
    if (state.guidelines !== undefined) {
      if (state.guidelines) { markdown($("guidelines-text"), state.guidelines); $("guidelines").hidden = false; guidesShown = true; }
    }
    // Above the first item; after the first label, one key (g) away.
    if (state.did === "saved" && guidesShown) { $("guidelines").hidden = true; guidesShown = false; }
    item = state.item;
    document.body.dataset.item = item ? item.id : "";
    document.body.dataset.dataId = item ? item.data_id : "";
    document.body.dataset.labelled = String(p.labelled);
    if (!item) {
      $("work").hidden = true; $("done").hidden = false;
    } else {
      $("done").hidden = true; $("work").hidden = false;
      $("where").textContent = "item " + item.position + " of " + p.total + " · " + item.subset + " · " + item.data_id;
      var hist = $("history");
      hist.replaceChildren();
      item.history.forEach(function (t) {
        var turn = el("div", undefined, "turn");
        turn.appendChild(el("div", t.role, "role"));
        var body = el("div"); markdown(body, t.content); turn.appendChild(body);
        hist.appendChild(turn);
      });
      markdown($("prompt"), item.prompt);
      markdown($("first"), item.first);
      markdown($("second"), item.second);
      $("note").value = "";
      window.scrollTo(0, 0);
    }
    shownAt = performance.now();
    if (keyAt !== null) { window.raterlabTimings.push(shownAt - keyAt); keyAt = null; }
    if (state.did) status(state.did + (item ? "" : " · every item asked is labelled") + " · " + p.labelled + " labels saved", false);
  }

  function act(key) {
    if (busy) return;
    var seconds = Math.max(0, (performance.now() - shownAt) / 1000);
    var req;
    if (key === "u") req = call("POST", "/api/undo", {});
    else if (!item) return;
    else if (key === "s") req = call("POST", "/api/skip", { item_id: item.id, seconds: seconds });
    else {
      var note = $("note").value.trim();
      var body = { item_id: item.id, key: Number(key), seconds: seconds };
      if (note) body.note = note;
      req = call("POST", "/api/label", body);
    }
    busy = true;
    keyAt = performance.now();
    req.then(show).catch(function (e) { keyAt = null; status("not saved: " + e.message + " (press the key again)", true); })
      .then(function () { busy = false; });
  }

  document.addEventListener("keydown", function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var typing = ev.target && ev.target.tagName === "TEXTAREA";
    if (typing) { if (ev.key === "Escape") ev.target.blur(); return; }
    if (ev.key === "g") { $("guidelines").hidden = !$("guidelines").hidden; return; }
    if (ev.key === "n") { ev.preventDefault(); $("note").focus(); return; }
    if (["0", "1", "2", "s", "u"].indexOf(ev.key) >= 0) { ev.preventDefault(); act(ev.key); }
  });
  Array.prototype.forEach.call(document.querySelectorAll("button[data-key]"), function (b) {
    b.addEventListener("click", function () { act(b.dataset.key); });
  });

  call("GET", "/api/state").then(show).catch(function (e) { status("cannot load: " + e.message, true); });
})();
