// Pairs' part of the item browser (after browser.js): each item with each configuration's
// rating (1, 2 or tie against gold; gold – for an item without one), the position-inconsistent
// filter, and a detail panel with the conversation, both responses, juries' votes and every
// answer.
const label = v => v === null ? '–' : v === -1 ? '1' : v === 1 ? '2' : 'tie';
// Each distinct text is in the data once (D.texts); an item names its prompt and responses by
// index.
D.items.forEach(it => { it.prompt = D.texts[it.prompt]; it.r1 = D.texts[it.r1]; it.r2 = D.texts[it.r2]; });
// A missing rating's status in a word (the list's cells), and a cell that is cut when the list
// is too narrow (the text in full in its tooltip).
const SHORT = { 'no verdict': 'none', 'call failed': 'failed', 'cut off while thinking': 'cut off', 'not asked': 'unasked' };
function clipped(text) { const td = el('td', text, 'clip'); td.title = text; return td; }
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
browse({
  rows: D.items,
  noun: 'items',
  subset: it => it.subset,
  text: it => [it.id, it.prompt, it.r1, it.r2].concat((it.turns || []).map(t => t.content)),
  keep(i, f, ks) {
    const it = D.items[i];
    if (f === 'wrong') return it.gold !== null && ks.some(k => it.ratings[k][0] !== null && it.ratings[k][0] !== it.gold);
    if (f === 'none') return ks.some(k => it.ratings[k][0] === null);
    if (f === 'disagree') return new Set(ks.map(k => it.ratings[k][0])).size > 1;
    if (f === 'inconsistent') return ks.some(k => inconsistent(i, k));
    return true;
  },
  cells(i) {
    const it = D.items[i];
    // A long id or subset is cut when the list is too narrow, to keep the configurations'
    // columns in view (in full in its tooltip and the detail panel).
    return [clipped(it.id), clipped(it.subset), el('td', it.order), el('td', label(it.gold))].concat(
      // An unlabelled item (gold –) has no right or wrong rating; a missing rating says why in
      // a word (in full in its tooltip).
      it.ratings.map(([r, status]) => {
        if (r !== null) return el('td', label(r), it.gold === null ? '' : r === it.gold ? 'r-right' : 'r-wrong');
        const td = el('td', SHORT[status] || status, 'r-none'); td.title = status; return td;
      }));
  },
  detail(i, box) {
    const it = D.items[i];
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
        const pre = answerText(s.text, s.span);
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
  },
});
