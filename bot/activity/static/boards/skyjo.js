// The Skyjo table: the piles, this page's grid (its cards are the moves: reveal, replace, take the
// discard, discard and turn) and every other grid, from the seat's own view (face-down cards are backs
// for everyone, their owner included: the view has no value for them).
//
// A move that needs a place is two taps, as the panel's two clicks: the discard pile first (take it, or
// discard the drawn card), then the place. Everything else is one tap. Only the bot's listed moves are
// offered (ctx.moves: {act, arg} with arg the grid position).

const DRAW = 'dr', TAKE = 'tk', REPLACE = 'rp', DISCARD = 'dv', REVEAL = 'rv', NEXT = 'nx';
let mode = 'main'; // 'take': the discard's card goes to the place tapped next; 'discard': the drawn one goes

// A value's colour group (bot/games/skyjo/cards.py group): below zero, zero, 1-4, 5-8, 9-12.
function group(value) {
  if (value < 0) return 0;
  if (value === 0) return 1;
  return value <= 4 ? 2 : value <= 8 ? 3 : 4;
}

// The value as the card prints it (cards.py face_label): a figure dash before a negative one.
const faceOf = (value) => (value < 0 ? `\u2012${-value}` : String(value));

function byAct(moves) {
  const out = {};
  for (const move of moves) (out[move.act] ||= new Set()).add(move.arg);
  return out;
}

function cell(ctx, view, seat, pos, playable, act) {
  const {t, card} = ctx;
  const rows = view.rows;
  const place = {column: Math.floor(pos / rows) + 1, row: (pos % rows) + 1};
  const value = view.grids[seat][pos];
  const mine = seat === ctx.seat;
  const can = Boolean(act) && playable.has(pos);
  const common = {key: mine ? `cell-${pos}` : null, small: !mine, can, onPlay: mine ? () => ctx.send(act, pos) : null};
  if (value === 'down') return card({...common, kind: 'back', label: t('skyjo.cell.down', place)});
  if (value === 'gone') return card({...common, kind: 'gone', label: t('skyjo.cell.gone', place)});
  return card({...common, face: faceOf(value), group: group(value), label: t('skyjo.cell.value', {...place, value})});
}

function seatPanel(ctx, view, seat, act, playable) {
  const {t, el, frame} = ctx;
  const mine = seat === ctx.seat;
  const tags = [];
  if (mine) tags.push(t('you'));
  if (ctx.computers.includes(seat)) tags.push('🤖');
  const shown = view.grids[seat].filter((v) => typeof v === 'number').reduce((a, b) => a + b, 0);
  const numbers = [t('points', {total: frame.scores[seat]})];
  const last = view.rounds[view.rounds.length - 1];
  if ((view.phase === 'round_over' || view.phase === 'game_over') && last) {
    numbers.push(t('round_score', {score: last.scores[seat]}));
  } else if (view.phase === 'play') {
    numbers.push(t('skyjo.shown', {sum: shown}));
  }
  const head = el('div', {class: 'seat-head'},
    el('span', {class: 'dot', 'aria-hidden': 'true'}),
    el('span', {class: 'name', text: ctx.names[seat]}),
    tags.length ? el('span', {class: 'tags', text: `(${tags.join(', ')})`}) : null,
    el('span', {class: 'numbers', text: numbers.join(' · ')}));
  const grid = el('div', {class: 'grid', style: `--cols: ${view.columns}`, role: mine ? 'group' : 'img',
    'aria-label': t('skyjo.grid', {name: ctx.names[seat]})});
  for (let row = 0; row < view.rows; row += 1) {
    for (let column = 0; column < view.columns; column += 1) {
      grid.append(cell(ctx, view, seat, column * view.rows + row, playable, act));
    }
  }
  if (mine) ctx.arrowKeys(grid, view.columns);
  const acting = frame.to_act.includes(seat) && view.phase !== 'round_over';
  return el('section', {class: `seat${mine ? ' mine' : ''}${acting ? ' acting' : ''}`, 'data-seat': seat,
    style: `--seat: var(--seat-${seat % 8})`}, head, grid);
}

function piles(ctx, view, by) {
  const {t, el, card, send} = ctx;
  const top = view.discard_pile.length ? view.discard_pile[view.discard_pile.length - 1] : null;
  const drawn = view.drawn;
  const myDraw = view.turn === ctx.seat && drawn !== null;
  const draw = card({kind: 'back', key: 'draw', label: t('skyjo.draw_card'), badge: String(view.draw_pile_size),
    can: Boolean(by[DRAW]) && mode === 'main', onPlay: () => send(DRAW, 0)});
  let discardLabel = t('skyjo.discard');
  let discardCan = false;
  if (mode !== 'main') {
    discardLabel = t('cancel');
    discardCan = true;
  } else if (by[TAKE] && top !== null) {
    discardLabel = t('skyjo.take', {value: top});
    discardCan = true;
  } else if (myDraw && by[DISCARD]) {
    discardLabel = t('skyjo.discard_it', {value: drawn});
    discardCan = true;
  }
  const pick = () => {
    mode = mode !== 'main' ? 'main' : drawn === null ? 'take' : 'discard';
    ctx.rerender();
  };
  const discard = top === null
    ? card({kind: 'empty', key: 'discard', label: discardLabel, can: discardCan, onPlay: pick})
    : card({face: faceOf(top), group: group(top), key: 'discard', label: discardLabel, can: discardCan,
      picked: mode !== 'main', onPlay: pick});
  const spots = [
    el('figure', {class: 'pile'}, draw, el('figcaption', {text: t('draw_pile')})),
    el('figure', {class: 'pile'}, discard, el('figcaption', {text: t('skyjo.discard')})),
  ];
  if (drawn !== null) {
    const held = card({face: faceOf(drawn), group: group(drawn), label: t('skyjo.drawn_value', {value: drawn}),
      picked: mode === 'discard'});
    spots.push(el('figure', {class: 'pile drawn'}, held, el('figcaption', {text: t('skyjo.drawn')})));
  }
  return el('div', {class: 'piles'}, ...spots);
}

function prompt(ctx, view, top) {
  const {t, plural, aCard, seat} = ctx;
  if (seat === null) return null;
  if (view.phase === 'reveal') {
    const left = view.reveals_left[seat];
    if (left > 0) return plural('skyjo.prompt.reveal', left);
    return t('skyjo.prompt.waiting_reveals', {players: ctx.frame.to_act.map((s) => ctx.names[s]).join(', ')});
  }
  if (view.phase === 'round_over') return t('round_over.prompt', {round: view.round});
  if (view.phase === 'game_over') return t('game_over.prompt');
  if (view.turn !== seat) return ctx.turnText();
  if (view.drawn === null) return t(mode === 'take' ? 'skyjo.prompt.take' : 'skyjo.prompt.turn', {value: top});
  if (mode === 'discard') return t('skyjo.prompt.discard', {value: view.drawn});
  return t('skyjo.prompt.drawn', {card: aCard(view.drawn), value: view.drawn});
}

export function render(ctx) {
  const {view, t, plural, el} = ctx;
  const by = byAct(ctx.moves);
  if ((mode === 'take' && !by[TAKE]) || (mode === 'discard' && !by[DISCARD])) mode = 'main';
  let act = null;
  if (by[REVEAL]) act = REVEAL;
  else if (mode === 'take') act = TAKE;
  else if (mode === 'discard') act = DISCARD;
  else if (by[REPLACE]) act = REPLACE;
  const playable = (act && by[act]) || new Set();
  const order = view.grids.map((_, s) => s);
  if (ctx.seat !== null) order.push(...order.splice(0, ctx.seat)); // this page's seat first, then clockwise
  const mine = ctx.seat !== null ? seatPanel(ctx, view, ctx.seat, act, playable) : null;
  const others = order.filter((s) => s !== ctx.seat).map((s) => seatPanel(ctx, view, s, null, new Set()));
  ctx.board.className = `board players-${view.grids.length}`;
  ctx.board.replaceChildren(...[piles(ctx, view, by), mine, el('div', {class: 'others'}, ...others)].filter(Boolean));
  if (by[NEXT]) ctx.actions.append(ctx.action('next', t('next_round'), () => ctx.send(NEXT, 0), 'go'));
  const cancel = () => { mode = 'main'; ctx.rerender(); };
  if (mode !== 'main') ctx.actions.append(ctx.action('cancel', t('cancel'), cancel));
  const top = view.discard_pile.length ? view.discard_pile[view.discard_pile.length - 1] : null;
  let round = t('round', {round: view.round});
  if (view.phase === 'round_over') round = t('round_over', {round: view.round});
  if (view.phase === 'game_over') round = t('game_over');
  let turn = ctx.turnText();
  if (view.phase === 'reveal') turn = plural('skyjo.reveal', view.options.initial_reveals);
  if (view.phase === 'play' && view.finisher !== null) turn = `${turn} · ${t('skyjo.last_turns')}`;
  return {round, turn, prompt: prompt(ctx, view, top)};
}
