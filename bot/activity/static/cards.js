// What both boards draw with: elements, cards, and the arrow keys of a row or grid of cards.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'class') node.className = value;
    else if (name === 'text') node.textContent = value;
    else if (name === 'onclick') node.addEventListener('click', value);
    else node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

// One card. `face`: the printed value (a string), or null for a back; `group`: its colour group (the
// CSS classes g0.. of the board's game, each with its colours and, for the colour-blind cards, its
// shape); `kind`: 'back', 'gone' or 'empty' for a place without a face. With `onPlay` it is a button
// (focusable, Enter and Space play it); `can` says it is a move now (else aria-disabled). Everything a
// card shows is also in its `label`, for screen readers.
export function card({face = null, group = null, kind = null, label, key = null, onPlay = null, can = false,
  picked = false, badge = null, small = false}) {
  const classes = ['card', kind || `g${group}`, small && 'small', can && 'can', picked && 'picked'];
  const attrs = {class: classes.filter(Boolean).join(' '), 'aria-label': label, 'data-key': key};
  let node;
  if (onPlay) {
    node = el('button', {...attrs, type: 'button', 'aria-disabled': can ? null : 'true',
      'aria-pressed': picked ? 'true' : null});
    node.addEventListener('click', () => { if (can) onPlay(); });
  } else {
    node = el('div', {...attrs, role: 'img'});
  }
  if (face !== null) node.append(el('span', {class: 'value', text: face, 'aria-hidden': 'true'}));
  if (face !== null && group !== null) node.append(el('span', {class: 'shape', 'aria-hidden': 'true'}));
  if (badge !== null) node.append(el('span', {class: 'badge', text: badge, 'aria-hidden': 'true'}));
  return node;
}

// A button of the actions' row (Next round, End turn, Cancel): `kind` 'go', 'stop' or none.
export function action(key, text, onclick, kind = '') {
  return el('button', {type: 'button', class: `action ${kind}`.trim(), 'data-key': key, text, onclick});
}

// Arrow keys move the focus among a container's buttons laid out in `columns` columns (row after row);
// only one of them is in the Tab order (the one focused last, else the first move, else the first).
export function arrowKeys(container, columns) {
  const buttons = [...container.querySelectorAll('button')];
  if (!buttons.length) return;
  const start = buttons.find((b) => b.classList.contains('can')) || buttons[0];
  for (const b of buttons) b.tabIndex = b === start ? 0 : -1;
  container.addEventListener('keydown', (event) => {
    const at = buttons.indexOf(document.activeElement);
    if (at < 0) return;
    const step = {ArrowLeft: -1, ArrowRight: 1, ArrowUp: -columns, ArrowDown: columns}[event.key];
    if (step === undefined) return;
    const next = at + step;
    if (next < 0 || next >= buttons.length) return;
    event.preventDefault();
    buttons[at].tabIndex = -1;
    buttons[next].tabIndex = 0;
    buttons[next].focus();
  });
}
