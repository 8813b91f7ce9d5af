// The Activity's page: signs in through Discord, opens the table's websocket and draws what the bot
// sends (docs/activity.md). What the page shows of a game is drawn by that game's board module
// (boards/<kind>.js); what every game shares (the turn, the countdown, the hint, the last moves, the
// refusals, the end, the connection) is here. The bot is the referee: the page only offers the moves the
// bot listed, and the bot still checks each one.

import {aCard, guessLanguage, load, plural, t} from './i18n.js';
import {SignInError, signIn} from './auth.js';
import {Connection} from './connection.js';
import {showOffer} from './offer.js';
import {action, arrowKeys, card, el} from './cards.js';

const PROTOCOL = 1;
const TOAST_MS = 6000;
const $ = (id) => document.getElementById(id);

// Everything the page knows, also for tests and debugging (nothing here that the bot did not send it).
const state = {
  hello: null, table: null, ended: null, board: null, pending: null, deadline: null, offer: null,
  connection: 'connecting', connections: [], // the connection's state, and every state it went through
};
window.skybo = state;
let connection = null;
let frames = Promise.resolve();
let toastTimer = null;

function overlay(text) {
  const box = $('overlay');
  box.hidden = !text;
  box.classList.toggle('banner', Boolean(state.table));
  $('overlay-text').textContent = text || '';
}

function toast(text, kind = 'refused') {
  const box = $('toast');
  box.textContent = text;
  box.className = kind;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, TOAST_MS);
}

function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return 'm' + [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

// A move the bot listed: sent once (a key of its own), nothing else sent until the bot answers it.
function send(act, arg) {
  if (state.pending || !state.table) return;
  const key = newKey();
  if (connection.send({type: 'move', act, arg, version: state.table.version, key})) {
    state.pending = key;
    render();
  }
}

function askHint() {
  if (state.table) connection.send({type: 'hint', version: state.table.version});
}

function connectionState(name, error) {
  state.connection = name;
  state.connections.push(name);
  const words = {
    connecting: 'status.connecting', reconnecting: 'status.reconnecting', restarting: 'status.restarting',
    waiting: 'status.waiting',
  };
  if (name === 'open') overlay(null);
  else if (name === 'closed' && error?.offer) offer(error.offer);
  else if (name === 'closed' && error instanceof SignInError) overlay(t(`status.${error.reason}`));
  else if (words[name]) overlay(t(words[name]));
  if (name !== 'open') state.pending = null;
}

async function hello(frame) {
  if (frame.protocol !== PROTOCOL) {
    overlay(t('status.protocol'));
    return;
  }
  await load(frame.language);
  if (!/^[a-z]+$/.test(frame.kind)) return;
  state.board = await import(`./boards/${frame.kind}.js`);
  state.hello = frame;
  $('app').className = `${frame.cards} ${frame.kind}`;
  document.title = t('title');
  $('hint').textContent = t('hint');
  $('log-title').textContent = t('last_moves');
}

async function onFrame(frame) {
  switch (frame.type) {
    case 'hello':
      await hello(frame);
      break;
    case 'table':
      state.table = frame;
      if (frame.key && frame.key === state.pending) state.pending = null;
      state.deadline = frame.turn_ends_in === null ? null : performance.now() + frame.turn_ends_in * 1000;
      if (frame.view.phase !== 'game_over') state.ended = null;
      render();
      break;
    case 'refused':
      if (!frame.key || frame.key === state.pending) state.pending = null;
      toast(frame.reason);
      render();
      break;
    case 'hint':
      toast(frame.text, 'hint');
      break;
    case 'ended':
      state.ended = frame;
      render();
      break;
    case 'bye':
      overlay(t(`status.${frame.reason}`));
      break;
    default:
      break;
  }
}

function tick() {
  const clock = $('clock');
  if (state.deadline === null || !state.table) {
    clock.hidden = true;
    return;
  }
  const seconds = Math.max(0, Math.ceil((state.deadline - performance.now()) / 1000));
  clock.hidden = false;
  clock.textContent = `⏳ ${t('seconds_left', {seconds})}`;
  clock.classList.toggle('short', seconds <= 10);
}

// Whose turn, in the table's words: "Your turn", "Alice to play" (board modules say more in a phase where
// several seats act at once).
function turnText(frame) {
  if (frame.to_act.length !== 1 || frame.view.phase !== 'play') return '';
  const seat = frame.to_act[0];
  return seat === frame.seat ? t('your_turn') : t('to_play', {name: frame.names[seat]});
}

function renderResult(frame) {
  const box = $('result');
  const ended = state.ended;
  box.hidden = !ended;
  if (!ended) return;
  const results = ended.results;
  $('result-title').textContent = ended.how === 'finished' ? t('game_over') : t(`ended.${ended.how}`);
  $('result-line').textContent = state.board.ending ? state.board.ending(results, frame.names, {t}) : '';
  const list = $('standings');
  list.replaceChildren();
  const order = [...results.ranks.keys()].sort((a, b) => results.ranks[a] - results.ranks[b]);
  for (const seat of order) {
    const points = results.totals ? ` — ${t('points', {total: results.totals[seat]})}` : '';
    list.append(el('li', {text: `${results.ranks[seat]}. ${frame.names[seat]}${points}`,
      class: seat === frame.seat ? 'you' : null}));
  }
}

function render() {
  const frame = state.table;
  if (!frame || !state.board) return;
  const focused = document.activeElement?.dataset?.key;
  const ctx = {
    frame, view: frame.view, seat: frame.seat, names: frame.names, computers: frame.computers,
    moves: state.pending ? [] : frame.moves, busy: Boolean(state.pending), send, rerender: render,
    t, plural, aCard, el, card, action, arrowKeys, turnText: () => turnText(frame),
    board: $('board'), actions: $('actions'),
  };
  $('actions').replaceChildren();
  const said = state.board.render(ctx);
  $('round').textContent = said.round || '';
  $('turn').textContent = said.turn ?? turnText(frame);
  $('turn').classList.toggle('mine', frame.to_act.includes(frame.seat) && frame.view.phase !== 'round_over');
  $('prompt').textContent = said.prompt || (frame.seat === null ? t('watching') : '');
  const hintable = frame.seat !== null && frame.view.phase === 'play' && frame.view.turn === frame.seat;
  $('hint').hidden = !hintable;
  $('hint').disabled = Boolean(state.pending);
  $('app').classList.toggle('busy', Boolean(state.pending));
  const recent = $('recent');
  recent.replaceChildren(...frame.recent.map((line) => el('li', {text: line})));
  $('log').hidden = !frame.recent.length;
  renderResult(frame);
  tick();
  if (focused) document.querySelector(`[data-key="${focused}"]`)?.focus();
}

// No table in the channel: the offer to open one (offer.js), in the user's language; once its game is
// dealt, the page signs in again and shows it.
async function offer(body) {
  state.table = null;
  await load(body.language);
  state.offer = body;
  showOffer(body, {say: overlay, onTable: start, onExpired: start});
}

async function start() {
  overlay(t('status.signing_in'));
  let session;
  try {
    session = await signIn();
  } catch (error) {
    if (error?.offer) offer(error.offer);
    else overlay(t(`status.${error instanceof SignInError ? error.reason : 'sign_in_failed'}`));
    return;
  }
  state.offer = null;
  connection = new Connection({
    session,
    signIn,
    onState: connectionState,
    onFrame: (frame) => { frames = frames.then(() => onFrame(frame)).catch((error) => console.error(error)); },
  });
  connection.open();
}

async function main() {
  await load(guessLanguage());
  $('hint').addEventListener('click', askHint);
  setInterval(tick, 1000);
  await start();
}

main();
