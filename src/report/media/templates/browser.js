// The item browser's frame, for every form: the list (a column per configuration), filters,
// search, pages, the detail panel, and the view a URL fragment sets (#filter=wrong&subset=s
// &config=0&q=text&item=3). The form's part, after this, calls browse() with what differs.
// Data is text only: it is put in the page with textContent, never as HTML.
const D = JSON.parse(document.getElementById('data').textContent);
const PAGE = 100;
const $ = id => document.getElementById(id);
function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }
// An answer's text, the part read as the verdict marked (its span in code points).
function answerText(text, span) {
  const pre = el('pre');
  const cps = Array.from(text || '');
  if (span && text !== null) {
    pre.appendChild(document.createTextNode(cps.slice(0, span[0]).join('')));
    pre.appendChild(el('mark', cps.slice(span[0], span[1]).join('')));
    pre.appendChild(document.createTextNode(cps.slice(span[1]).join('')));
  } else {
    pre.textContent = text === null ? '(no answer)' : text;
  }
  return pre;
}
// F: rows, noun ('items', 'rows'), subset(row), text(row) (the strings searched),
// keep(i, filter, configs) (true for a filter it does not know), cells(i) (the row's <td>s
// after nothing), detail(i, box).
function browse(F) {
  let shown = [], page = 0, selected = -1;
  const head = $('items').tHead.rows[0];
  // Configurations are numbered in the list's header (full names in the legend and tooltips).
  D.configs.forEach((c, k) => {
    const th = el('th', 'C' + (k + 1)); th.title = c; head.appendChild(th);
    $('config').appendChild(new Option('C' + (k + 1) + ' ' + c, String(k)));
    $('legend').appendChild(el('span', 'C' + (k + 1) + ' ' + c + (k + 1 < D.configs.length ? ' · ' : '')));
  });
  [...new Set(F.rows.map(F.subset))].sort().forEach(s => $('subset').appendChild(new Option(s, s)));
  // The searchable text of each row, lower-cased once, on the first search.
  let hay = null;
  function haystack(i) {
    if (hay === null) hay = F.rows.map(r => F.text(r).join('\u0000').toLowerCase());
    return hay[i];
  }
  function matches(i) {
    const f = $('filter').value, s = $('subset').value, q = $('search').value.toLowerCase();
    const ks = $('config').value === '' ? D.configs.map((_, k) => k) : [Number($('config').value)];
    if (s && F.subset(F.rows[i]) !== s) return false;
    if (q && !haystack(i).includes(q)) return false;
    return F.keep(i, f, ks);
  }
  function render() {
    const t0 = performance.now();
    shown = F.rows.map((_, i) => i).filter(matches);
    page = Math.min(page, Math.max(0, Math.ceil(shown.length / PAGE) - 1));
    const body = $('items').tBodies[0];
    body.replaceChildren();
    for (const i of shown.slice(page * PAGE, (page + 1) * PAGE)) {
      const tr = document.createElement('tr');
      tr.dataset.item = String(i);
      F.cells(i).forEach(td => tr.appendChild(td));
      if (i === selected) tr.className = 'sel';
      tr.addEventListener('click', () => { selected = i; render(); detail(i); });
      body.appendChild(tr);
    }
    $('count').textContent = shown.length + ' of ' + F.rows.length + ' ' + F.noun;
    // Too wide for the list: long ids and subsets are cut (the form's cells of class clip);
    // configurations' columns still past its right edge: say which, and how to reach them.
    const table = $('items'), list = table.parentElement;
    table.classList.remove('narrow');
    if (table.offsetWidth > list.clientWidth) table.classList.add('narrow');
    const edge = list.getBoundingClientRect().left + list.clientLeft + list.clientWidth;
    const cut = [...head.cells].filter(th => th.getBoundingClientRect().right > edge + 1);
    $('more').textContent = cut.length ? ' · ' + cut.map(th => th.textContent).join(', ') + ' to the right: scroll the list sideways' : '';
    $('page').textContent = ' page ' + (shown.length ? page + 1 : 0) + ' / ' + Math.ceil(shown.length / PAGE) + ' ';
    // How long the last filter took, in ms (read by tests and benchmarks).
    document.body.dataset.render = String(Math.round(performance.now() - t0));
  }
  function detail(i) {
    const box = $('detail');
    box.replaceChildren();
    F.detail(i, box);
  }
  ['filter', 'subset', 'config', 'search'].forEach(id => $(id).addEventListener('input', () => { page = 0; render(); }));
  $('prev').addEventListener('click', () => { page = Math.max(0, page - 1); render(); });
  $('next').addEventListener('click', () => { page = page + 1; render(); });
  const frag = new URLSearchParams(location.hash.slice(1));
  if (frag.get('filter')) $('filter').value = frag.get('filter');
  if (frag.get('subset')) $('subset').value = frag.get('subset');
  if (frag.get('config')) $('config').value = frag.get('config');
  if (frag.get('q')) $('search').value = frag.get('q');
  render();
  if (frag.get('item') !== null && F.rows[Number(frag.get('item'))]) {
    selected = Number(frag.get('item'));
    if (!shown.includes(selected)) { $('filter').value = 'all'; $('subset').value = ''; $('config').value = ''; $('search').value = ''; render(); }
    page = Math.floor(shown.indexOf(selected) / PAGE); render(); detail(selected);
    $('browser').scrollIntoView();
    $('items').querySelector('tr.sel')?.scrollIntoView({ block: 'nearest' });
  }
  // When the browser was ready, in ms since navigation (read by tests and benchmarks).
  document.body.dataset.ready = String(Math.round(performance.now()));
}
