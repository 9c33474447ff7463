// RewardBench 2's row browser: every row with each configuration's result; filters, search,
// pages and a detail panel with all completions in their slots (the correct ones marked), the
// pick or the grades, and every answer. Data is text only: it is put in the page with
// textContent, never as HTML.
const D = JSON.parse(document.getElementById('data').textContent);
const PAGE = 100;
let shown = [], page = 0, selected = -1;
const $ = id => document.getElementById(id);
const letter = k => String.fromCharCode(65 + k);
function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }
const head = $('items').tHead.rows[0];
D.configs.forEach((c, k) => {
  const th = el('th', 'C' + (k + 1)); th.title = c; head.appendChild(th);
  $('config').appendChild(new Option('C' + (k + 1) + ' ' + c, String(k)));
  $('legend').appendChild(el('span', 'C' + (k + 1) + ' ' + c + (k + 1 < D.configs.length ? ' · ' : '')));
});
[...new Set(D.rows.map(r => r.subset))].sort().forEach(s => $('subset').appendChild(new Option(s, s)));
let hay = null;
function haystack(i) {
  if (hay === null) hay = D.rows.map(r => [r.id, r.prompt].concat(r.slots).join('\u0000').toLowerCase());
  return hay[i];
}
// A configuration's result on a row: a number (1 right, 0 wrong, 1/k shared), or null.
const result = (r, k) => r.results[k].result;
function matches(i) {
  const r = D.rows[i], f = $('filter').value, s = $('subset').value, q = $('search').value.toLowerCase();
  const ks = $('config').value === '' ? D.configs.map((_, k) => k) : [Number($('config').value)];
  if (s && r.subset !== s) return false;
  if (q && !haystack(i).includes(q)) return false;
  if (f === 'wrong') return ks.some(k => result(r, k) !== null && result(r, k) < 1);
  if (f === 'none') return ks.some(k => r.results[k].missing > 0);
  if (f === 'disagree') return new Set(ks.map(k => String(result(r, k)))).size > 1;
  return true;
}
function cell(r, k) {
  const x = r.results[k], v = x.result;
  const text = v === null ? (x.missing > 0 ? 'nothing read' : '–') : (x.pick !== null ? letter(x.pick) + ' ' : '') + (Math.round(v * 100) / 100);
  return el('td', text, v === null ? 'r-none' : v >= 1 ? 'r-right' : 'r-wrong');
}
function render() {
  const t0 = performance.now();
  shown = D.rows.map((_, i) => i).filter(matches);
  page = Math.min(page, Math.max(0, Math.ceil(shown.length / PAGE) - 1));
  const body = $('items').tBodies[0];
  body.replaceChildren();
  for (const i of shown.slice(page * PAGE, (page + 1) * PAGE)) {
    const r = D.rows[i], tr = document.createElement('tr');
    tr.dataset.item = String(i);
    [r.id, r.subset, r.correct.map(letter).join(',')].forEach(t => tr.appendChild(el('td', t)));
    D.configs.forEach((_, k) => tr.appendChild(cell(r, k)));
    if (i === selected) tr.className = 'sel';
    tr.addEventListener('click', () => { selected = i; render(); detail(i); });
    body.appendChild(tr);
  }
  $('count').textContent = shown.length + ' of ' + D.rows.length + ' rows';
  $('page').textContent = ' page ' + (shown.length ? page + 1 : 0) + ' / ' + Math.ceil(shown.length / PAGE) + ' ';
  document.body.dataset.render = String(Math.round(performance.now() - t0));
}
function detail(i) {
  const r = D.rows[i], box = $('detail');
  box.replaceChildren();
  box.appendChild(el('h3', r.id + ' · ' + r.subset + ' · correct ' + r.correct.map(letter).join(', ')));
  box.appendChild(el('h4', 'Prompt')); box.appendChild(el('pre', r.prompt));
  r.slots.forEach((t, s) => {
    const marks = D.configs.map((c, k) => {
      const x = r.results[k], bits = [];
      if (x.pick === s) bits.push('picked');
      if (x.grades && x.grades[s] !== null) bits.push('grade ' + x.grades[s]);
      return bits.length ? 'C' + (k + 1) + ': ' + bits.join(', ') : null;
    }).filter(m => m !== null);
    const h = el('h4', letter(s) + (r.correct.includes(s) ? ' (correct)' : '') + (marks.length ? ' · ' + marks.join(' · ') : ''));
    if (r.correct.includes(s)) h.className = 'r-right';
    box.appendChild(h); box.appendChild(el('pre', t));
  });
  D.configs.forEach((c, k) => {
    const x = r.results[k];
    box.appendChild(el('h4', 'C' + (k + 1) + ' ' + c + ': ' + (x.result === null ? 'no result' : 'result ' + x.result) + (x.wins ? ' · pairs won ' + x.wins : '')));
    for (const a of x.answers) {
      box.appendChild(el('div', a.asked + ', sample ' + a.sample + ': ' + a.read, 'note'));
      const pre = el('pre');
      const cps = Array.from(a.text || '');
      if (a.span && a.text !== null) {
        pre.appendChild(document.createTextNode(cps.slice(0, a.span[0]).join('')));
        pre.appendChild(el('mark', cps.slice(a.span[0], a.span[1]).join('')));
        pre.appendChild(document.createTextNode(cps.slice(a.span[1]).join('')));
      } else {
        pre.textContent = a.text === null ? '(no answer)' : a.text;
      }
      box.appendChild(pre);
    }
  });
}
['filter', 'subset', 'config', 'search'].forEach(id => $(id).addEventListener('input', () => { page = 0; render(); }));
$('prev').addEventListener('click', () => { page = Math.max(0, page - 1); render(); });
$('next').addEventListener('click', () => { page = page + 1; render(); });
const frag = new URLSearchParams(location.hash.slice(1));
if (frag.get('filter')) $('filter').value = frag.get('filter');
if (frag.get('subset')) $('subset').value = frag.get('subset');
if (frag.get('q')) $('search').value = frag.get('q');
render();
if (frag.get('item') !== null && D.rows[Number(frag.get('item'))]) { selected = Number(frag.get('item')); detail(selected); }
document.body.dataset.ready = String(Math.round(performance.now()));
