// RewardBench 2's part of the item browser (after browser.js): every row with each
// configuration's result, and a detail panel with all completions in their slots (the correct
// ones marked), the pick or the grades, and every answer.
const letter = k => String.fromCharCode(65 + k);
// A configuration's result on a row: a number (1 right, 0 wrong, 1/k shared), or null.
const result = (r, k) => r.results[k].result;
function cell(r, k) {
  const x = r.results[k], v = x.result;
  const text = v === null ? (x.missing > 0 ? 'nothing read' : '–') : (x.pick !== null ? letter(x.pick) + ' ' : '') + (Math.round(v * 100) / 100);
  return el('td', text, v === null ? 'r-none' : v >= 1 ? 'r-right' : 'r-wrong');
}
browse({
  rows: D.rows,
  noun: 'rows',
  subset: r => r.subset,
  text: r => [r.id, r.prompt].concat(r.slots),
  keep(i, f, ks) {
    const r = D.rows[i];
    if (f === 'wrong') return ks.some(k => result(r, k) !== null && result(r, k) < 1);
    if (f === 'none') return ks.some(k => r.results[k].missing > 0);
    if (f === 'disagree') return new Set(ks.map(k => String(result(r, k)))).size > 1;
    return true;
  },
  cells(i) {
    const r = D.rows[i];
    return [r.id, r.subset, r.correct.map(letter).join(',')].map(t => el('td', t)).concat(D.configs.map((_, k) => cell(r, k)));
  },
  detail(i, box) {
    const r = D.rows[i];
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
        box.appendChild(answerText(a.text, a.span));
      }
    });
  },
});
