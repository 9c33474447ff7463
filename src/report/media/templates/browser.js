// The item browser: every item with each configuration's rating; filters, search, pages and a
// detail panel. Data is text only: it is put in the page with textContent, never as HTML.
const D = JSON.parse(document.getElementById('data').textContent);
const PAGE = 100;
let shown = [], page = 0, selected = -1;
const $ = id => document.getElementById(id);
const label = v => v === null ? '–' : v === -1 ? '1' : v === 1 ? '2' : 'tie';
function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }
const head = $('items').tHead.rows[0];
// Configurations are numbered in the list's header (full names in the legend and tooltips).
D.configs.forEach((c, k) => {
  const th = el('th', 'C' + (k + 1)); th.title = c; head.appendChild(th);
  $('config').appendChild(new Option('C' + (k + 1) + ' ' + c, String(k)));
  $('legend').appendChild(el('span', 'C' + (k + 1) + ' ' + c + (k + 1 < D.configs.length ? ' · ' : '')));
});
[...new Set(D.items.map(i => i.subset))].sort().forEach(s => $('subset').appendChild(new Option(s, s)));
// Position-inconsistent: a configuration rated the pair in both orders and its two verdicts
// disagree once un-swapped (the complement of the position table's consistency; a pair with
// an order unread is found by "no verdict").
const byPair = {};
D.items.forEach((it, i) => { (byPair[it.pair] = byPair[it.pair] || []).push(i); });
function inconsistent(i, k) {
  const other = byPair[D.items[i].pair].find(j => j !== i);
  if (other === undefined) return false;
  const a = D.items[i].ratings[k][0], b = D.items[other].ratings[k][0];
  return a !== null && b !== null && a !== -b;
}
// The searchable text of each item, lower-cased once, on the first search.
let hay = null;
function haystack(i) {
  if (hay === null) hay = D.items.map(it => [it.id, it.prompt, it.r1, it.r2].concat((it.turns || []).map(t => t.content)).join('\u0000').toLowerCase());
  return hay[i];
}
function matches(i) {
  const it = D.items[i], f = $('filter').value, s = $('subset').value, q = $('search').value.toLowerCase();
  const ks = $('config').value === '' ? D.configs.map((_, k) => k) : [Number($('config').value)];
  if (s && it.subset !== s) return false;
  if (q && !haystack(i).includes(q)) return false;
  if (f === 'wrong') return ks.some(k => it.ratings[k][0] !== null && it.ratings[k][0] !== it.gold);
  if (f === 'none') return ks.some(k => it.ratings[k][0] === null);
  if (f === 'disagree') return new Set(ks.map(k => it.ratings[k][0])).size > 1;
  if (f === 'inconsistent') return ks.some(k => inconsistent(i, k));
  return true;
}
function render() {
  const t0 = performance.now();
  shown = D.items.map((_, i) => i).filter(matches);
  page = Math.min(page, Math.max(0, Math.ceil(shown.length / PAGE) - 1));
  const body = $('items').tBodies[0];
  body.replaceChildren();
  for (const i of shown.slice(page * PAGE, (page + 1) * PAGE)) {
    const it = D.items[i], tr = document.createElement('tr');
    tr.dataset.item = String(i);
    [it.id, it.subset, it.order, label(it.gold)].forEach(t => tr.appendChild(el('td', t)));
    it.ratings.forEach(([r, status]) => tr.appendChild(el('td', r === null ? status : label(r), r === null ? 'r-none' : r === it.gold ? 'r-right' : 'r-wrong')));
    if (i === selected) tr.className = 'sel';
    tr.addEventListener('click', () => { selected = i; render(); detail(i); });
    body.appendChild(tr);
  }
  $('count').textContent = shown.length + ' of ' + D.items.length + ' items';
  $('page').textContent = ' page ' + (shown.length ? page + 1 : 0) + ' / ' + Math.ceil(shown.length / PAGE) + ' ';
  // How long the last filter took, in ms (read by tests and benchmarks).
  document.body.dataset.render = String(Math.round(performance.now() - t0));
}
function detail(i) {
  const it = D.items[i], box = $('detail');
  box.replaceChildren();
  box.appendChild(el('h3', it.id + ' · ' + it.subset + ' · ' + it.order + ' · gold ' + label(it.gold)));
  // A conversation: each earlier turn under its speaker, then the question the replies answer.
  (it.turns || []).forEach(t => { box.appendChild(el('h4', t.role === 'user' ? 'User' : t.role === 'assistant' ? 'Assistant' : 'System', 'turn')); box.appendChild(el('pre', t.content, 'turn')); });
  box.appendChild(el('h4', it.turns ? 'User (the question both replies answer)' : 'Prompt')); box.appendChild(el('pre', it.prompt));
  const cols = el('div', undefined, 'cols');
  const by = k => it.models ? ' (' + it.models[k] + ')' : '';
  [['Response 1' + by(0), it.r1], ['Response 2' + by(1), it.r2]].forEach(([h, t]) => { const d = el('div'); d.appendChild(el('h4', h)); d.appendChild(el('pre', t)); cols.appendChild(d); });
  box.appendChild(cols);
  D.configs.forEach((c, k) => {
    const [r, status] = it.ratings[k];
    box.appendChild(el('h4', 'C' + (k + 1) + ' ' + c + ': ' + (r === null ? status : label(r))));
    // A jury: each member's vote on this item (a member without a verdict does not vote).
    if (D.juries && D.juries[k]) {
      box.appendChild(el('div', 'members\' votes: ' + D.juries[k].map(m => {
        const [v, st] = it.ratings[m];
        return 'C' + (m + 1) + ' ' + D.configs[m] + ': ' + (v === null ? st + ' (no vote)' : label(v));
      }).join(' · '), 'note jury'));
    }
    if (D.answers_cut !== undefined && i >= D.answers_cut) {
      box.appendChild(el('div', 'The answers of items after the first ' + D.answers_cut + ' are not in this page (it keeps ' + D.answers_mb + ' MB of answers); they are in completions.jsonl, config "' + c + '", id "' + it.id + '".', 'note'));
    }
    for (const s of (D.completions[k][i] || [])) {
      const pre = el('pre');
      const cps = Array.from(s.text || '');
      if (s.span) {
        pre.appendChild(document.createTextNode(cps.slice(0, s.span[0]).join('')));
        pre.appendChild(el('mark', cps.slice(s.span[0], s.span[1]).join('')));
        pre.appendChild(document.createTextNode(cps.slice(s.span[1]).join('')));
      } else {
        pre.textContent = s.text === null ? '(no answer)' : s.text;
      }
      const what = s.grade !== null && s.grade !== undefined ? 'grade ' + s.grade + ' (response ' + s.side + ')' : s.verdict !== null && s.verdict !== undefined ? 'verdict ' + label(s.verdict) : (s.problem || '');
      box.appendChild(el('div', 'sample ' + s.sample + ': ' + what, 'note'));
      if (s.reasoning) {
        // The thinking, collapsed above the answer: never where the verdict was read.
        const think = el('details');
        think.appendChild(el('summary', 'thinking (' + Array.from(s.reasoning).length + ' characters)'));
        think.appendChild(el('pre', s.reasoning));
        box.appendChild(think);
      }
      box.appendChild(pre);
    }
  });
}
['filter', 'subset', 'config', 'search'].forEach(id => $(id).addEventListener('input', () => { page = 0; render(); }));
$('prev').addEventListener('click', () => { page = Math.max(0, page - 1); render(); });
$('next').addEventListener('click', () => { page = page + 1; render(); });
// A URL fragment such as #filter=wrong&subset=math-prm&q=text&item=3 sets the view.
const frag = new URLSearchParams(location.hash.slice(1));
if (frag.get('filter')) $('filter').value = frag.get('filter');
if (frag.get('subset')) $('subset').value = frag.get('subset');
if (frag.get('config')) $('config').value = frag.get('config');
if (frag.get('q')) $('search').value = frag.get('q');
render();
if (frag.get('item') !== null && D.items[Number(frag.get('item'))]) {
  selected = Number(frag.get('item'));
  if (!shown.includes(selected)) { $('filter').value = 'all'; $('subset').value = ''; $('config').value = ''; $('search').value = ''; render(); }
  page = Math.floor(shown.indexOf(selected) / PAGE); render(); detail(selected);
  $('browser').scrollIntoView();
  $('items').querySelector('tr.sel')?.scrollIntoView({ block: 'nearest' });
}
// When the browser was ready, in ms since navigation (read by tests and benchmarks).
document.body.dataset.ready = String(Math.round(performance.now()));
