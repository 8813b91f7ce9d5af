// The Skip-Bo table: the building piles, this page's own stock, discard piles and hand (the hand is only
// in this seat's own view), the partner's piles in a team game, and every other seat's public piles and
// hand size. A move is a card, then where it goes (the panel's two clicks): a building pile, or, for a
// hand card, one of the player's discard piles (which ends the turn). Only the bot's listed moves are
// offered (ctx.moves: {act, arg, source, index, card, pile, value} for a play, {act: 'dc', card, pile}
// for a discard, {act: 'et'} and {act: 'nx'}).

const WILD = 0, DISCARD = 'dc', END_TURN = 'et', NEXT = 'nx';
let picked = null; // {source, index, card}: the card chosen first

// A card's colour group (bot/games/skipbo/cards.py group): 1-4, 5-8, 9-12, the Skip-Bo card.
const group = (card) => (card === WILD ? 3 : card <= 4 ? 0 : card <= 8 ? 1 : 2);
const faceOf = (card) => (card === WILD ? 'SB' : String(card));
const top = (pile) => (pile.length ? pile[pile.length - 1] : null);
const same = (a, b) => a && b && a.source === b.source && a.index === b.index && a.card === b.card;
const look = (card) => (card === null ? {kind: 'empty'} : {face: faceOf(card), group: group(card)});

function wordsOf(ctx, card) {
  return card === WILD ? ctx.t('skipbo.wild') : String(card);
}

// Whether a card of `source` may be chosen now: a play from it is listed (or, for a hand card, a discard).
function choosable(moves, choice) {
  return moves.some((m) => (m.source !== undefined && same(m, choice))
    || (choice.source === 'hand' && m.act === DISCARD && m.card === choice.card));
}

function pick(ctx, choice) {
  picked = same(picked, choice) ? null : choice;
  ctx.rerender();
}

// The second tap: the move goes to the bot, and the next one starts from nothing picked.
function play(ctx, move) {
  picked = null;
  ctx.send(move.act, move.arg);
}

function sourceCard(ctx, choice, {label, key, small = false, badge = null}) {
  const {card, moves} = ctx;
  if (choice.card === null) return card({kind: 'empty', label, key, small, badge});
  const can = choosable(moves, choice);
  return card({face: faceOf(choice.card), group: group(choice.card), label, key, small, badge, can,
    picked: same(picked, choice), onPlay: can || ctx.seat !== null ? () => pick(ctx, choice) : null});
}

// A seat's stock and discard piles: sources of this seat's (or its partner's) plays, targets of its
// own discards; anyone else's are only shown.
function piles(ctx, seat, role) {
  const {view, t, el, card, moves} = ctx;
  const small = role === 'other';
  const partner = role === 'partner';
  const left = view.stock_sizes[seat];
  const stockTop = left ? view.stock_tops[seat] : null;
  const stockLabel = stockTop === null
    ? t(partner ? 'skipbo.partner_stock_empty' : 'skipbo.stock_empty')
    : t(partner ? 'skipbo.partner_stock' : 'skipbo.stock_top', {value: wordsOf(ctx, stockTop), left});
  const stockChoice = {source: partner ? 'partner_stock' : 'stock', index: 0, card: stockTop};
  const stock = small
    ? card({...look(stockTop), label: stockLabel, small, badge: String(left)})
    : sourceCard(ctx, stockChoice, {label: stockLabel, key: `${role}-stock`, badge: String(left)});
  const discards = view.discard_piles[seat].map((pile, i) => {
    const number = i + 1, card0 = top(pile);
    const words = {number, value: card0 === null ? null : wordsOf(ctx, card0), depth: pile.length};
    const label = card0 === null
      ? t(partner ? 'skipbo.partner_discard_empty' : 'skipbo.discard_empty', words)
      : t(partner ? 'skipbo.partner_discard' : 'skipbo.discard_top', words);
    const key = `${role}-discard-${i}`;
    const badge = pile.length > 1 ? String(pile.length) : null;
    if (small) return card({...look(card0), label, small, badge});
    if (role === 'mine' && picked?.source === 'hand') { // a target: the hand card goes here, the turn ends
      const move = moves.find((m) => m.act === DISCARD && m.card === picked.card && m.pile === i);
      return card({...look(card0), label, key, badge, can: Boolean(move), onPlay: () => play(ctx, move)});
    }
    const choice = {source: partner ? 'partner_discard' : 'discard', index: i, card: card0};
    return sourceCard(ctx, choice, {label, key, badge});
  });
  return el('div', {class: 'sb-piles'},
    el('figure', {class: 'pile'}, stock, el('figcaption', {text: t('skipbo.stock')})),
    el('div', {class: 'discards', role: 'group', 'aria-label': t('skipbo.discards')}, ...discards));
}

function seatHead(ctx, seat) {
  const {view, t, el} = ctx;
  const tags = [];
  if (seat === ctx.seat) tags.push(t('you'));
  if (ctx.computers.includes(seat)) tags.push('🤖');
  const numbers = [ctx.plural('skipbo.hand_size', view.hand_sizes[seat])];
  if (view.options.several_rounds) numbers.push(t('points', {total: ctx.frame.scores[seat]}));
  const team = view.teams ? view.teams[seat] : null;
  return el('div', {class: 'seat-head'},
    el('span', {class: 'dot', 'aria-hidden': 'true'}),
    el('span', {class: 'name', text: ctx.names[seat]}),
    tags.length ? el('span', {class: 'tags', text: `(${tags.join(', ')})`}) : null,
    team === null ? null : el('span', {class: `team team-${team}`, text: t('skipbo.team', {team: team + 1})}),
    el('span', {class: 'numbers', text: numbers.join(' · ')}));
}

function seatPanel(ctx, seat, role) {
  const {view, el, frame} = ctx;
  const acting = frame.to_act.includes(seat) && view.phase === 'play';
  const section = el('section', {class: `seat ${role}${acting ? ' acting' : ''}`, 'data-seat': seat,
    style: `--seat: var(--seat-${seat % 8})`},
    seatHead(ctx, seat), piles(ctx, seat, role));
  if (role === 'mine' && view.hand) {
    const hand = el('div', {class: 'hand', role: 'group', 'aria-label': ctx.t('skipbo.hand')});
    view.hand.forEach((c, i) => {
      const choice = {source: 'hand', index: 0, card: c};
      const label = ctx.t('skipbo.hand_card', {card: wordsOf(ctx, c)});
      hand.append(sourceCard(ctx, choice, {label, key: `hand-${i}`}));
    });
    section.append(hand);
    ctx.arrowKeys(hand, view.hand.length);
  }
  return section;
}

function building(ctx) {
  const {view, t, el, card, moves} = ctx;
  const spots = view.building_piles.map((value, pile) => {
    const number = pile + 1;
    const next = value + 1;
    const move = picked && moves.find((m) => m.source !== undefined && same(m, picked) && m.pile === pile);
    const topCard = view.building_tops[pile];
    const shownTop = value ? String(value) : '—';
    const label = t(picked ? 'skipbo.pile_target' : 'skipbo.pile', {number, top: shownTop, value: next});
    // the value the pile has reached; a Skip-Bo card on top keeps its colour and says so
    const face = value ? {face: String(value), group: group(topCard === WILD ? WILD : value)} : {kind: 'empty'};
    const onPlay = ctx.seat === null ? null : () => play(ctx, move);
    const badge = topCard === WILD ? 'SB' : null;
    return card({...face, label, badge, key: `pile-${pile}`, can: Boolean(move), onPlay});
  });
  const row = el('div', {class: 'building', role: 'group', 'aria-label': t('skipbo.building')}, ...spots);
  if (ctx.seat !== null) ctx.arrowKeys(row, 4);
  const size = view.draw_pile_size;
  const draw = card({kind: 'back', label: ctx.plural('draw_pile_size', size), badge: String(size)});
  return el('div', {class: 'middle'},
    el('figure', {class: 'pile'}, row, el('figcaption', {text: t('skipbo.building')})),
    el('figure', {class: 'pile'}, draw, el('figcaption', {text: t('draw_pile')})));
}

function prompt(ctx) {
  const {view, t, seat} = ctx;
  if (seat === null) return null;
  if (view.phase === 'round_over') return t('round_over.prompt', {round: view.round});
  if (view.phase === 'game_over') return t('game_over.prompt');
  if (view.turn !== seat) {
    const partnerPlays = view.partner !== null && view.turn === view.partner;
    return partnerPlays ? t('skipbo.prompt.waiting_partner', {player: ctx.names[view.turn]}) : ctx.turnText();
  }
  if (!picked) return t(ctx.moves.some((m) => m.act === END_TURN) ? 'skipbo.prompt.empty_hand' : 'skipbo.prompt.turn');
  const words = wordsOf(ctx, picked.card);
  if (picked.card === WILD) return t('skipbo.prompt.wild');
  if (picked.source !== 'hand') return t('skipbo.prompt.card', {card: words});
  const fits = ctx.moves.some((m) => m.source === 'hand' && m.card === picked.card);
  return t(fits ? 'skipbo.prompt.hand_card' : 'skipbo.prompt.hand_card_stuck', {card: words});
}

export function render(ctx) {
  const {view, t, el, seat} = ctx;
  if (picked && !choosable(ctx.moves, picked)) picked = null;
  const partner = seat === null ? null : view.partner;
  const order = view.players.map((_, s) => s);
  if (seat !== null) order.push(...order.splice(0, seat));
  const others = order.filter((s) => s !== seat && s !== partner).map((s) => seatPanel(ctx, s, 'other'));
  ctx.board.className = `board players-${view.players.length}${view.teams ? ' teams' : ''}`;
  ctx.board.replaceChildren(...[building(ctx),
    seat !== null ? seatPanel(ctx, seat, 'mine') : null,
    partner !== null ? seatPanel(ctx, partner, 'partner') : null,
    el('div', {class: 'others'}, ...others)].filter(Boolean));
  const end = ctx.moves.find((m) => m.act === END_TURN);
  if (end) ctx.actions.append(ctx.action('end', t('skipbo.end_turn'), () => ctx.send(end.act, end.arg), 'stop'));
  const next = ctx.moves.find((m) => m.act === NEXT);
  if (next) ctx.actions.append(ctx.action('next', t('next_round'), () => ctx.send(next.act, next.arg), 'go'));
  const cancel = () => { picked = null; ctx.rerender(); };
  if (picked) ctx.actions.append(ctx.action('cancel', t('cancel'), cancel));
  let round = view.options.several_rounds ? t('round', {round: view.round}) : '';
  if (view.phase === 'round_over') round = t('round_over', {round: view.round});
  if (view.phase === 'game_over') round = t('game_over');
  return {round, prompt: prompt(ctx)};
}

// The end's line: who won (a team's two names), or a draw.
export function ending(results, names, {t}) {
  if (results.draw) return t('skipbo.stalled');
  const won = results.winners.map((s) => names[s]);
  if (!won.length) return '';
  const text = won.length === 2 ? t('skipbo.and', {first: won[0], second: won[1]}) : won.join(', ');
  return t('skipbo.won', {names: text});
}
