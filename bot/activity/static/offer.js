// Launched where no table is (docs/activity.md, "Opening a table"): the games the bot has, a button each
// to open a table in this channel as `/<game> new` with no option would (api/open, with the channel
// session the sign-in answered), then the wait for its game: api/channel every POLL_MS says whether the
// game is dealt; once it is, the page signs in again (a new code from Discord) and shows the table.
// Where the bot cannot open a table (not a member of that place), one line says what to do instead.

import {t} from './i18n.js';
import {el} from './cards.js';

const POLL_MS = 2500;
const $ = (id) => document.getElementById(id);

async function post(route, body) {
  const answer = await fetch(route, {
    method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body),
  });
  return {status: answer.status, body: await answer.json().catch(() => ({}))};
}

// `offer`: the no_table answer (session, games, commands, can_open, lobby). `say(text)`: the overlay's
// line. `onTable()`: the game is dealt (the page signs in again). `onExpired()`: the channel session is
// no longer good (the page signs in again, which answers a new one).
export function showOffer(offer, {say, onTable, onExpired}) {
  const box = $('offer');
  let lobby = offer.lobby;
  let opened = false;
  let timer = null;
  let busy = false;
  const stop = () => { clearTimeout(timer); box.hidden = true; box.replaceChildren(); };

  function draw(note = '') {
    box.replaceChildren();
    box.hidden = false;
    if (lobby) {
      const line = opened ? t('open.opened') : t('open.lobby', {game: lobby.name});
      say(line);
      box.append(el('p', {id: 'offer-seats', text: t('open.seats', {names: lobby.seats.join(', ')})}));
      return;
    }
    if (!offer.can_open) {
      say(t('open.not_here', {commands: offer.commands}));
      return;
    }
    say(note || t('open.title'));
    for (const game of offer.games) {
      const button = el('button', {type: 'button', class: 'open', 'data-key': `open-${game.kind}`,
        text: t('open.button', {game: game.name}), disabled: busy});
      button.addEventListener('click', () => open(game.kind));
      box.append(el('div', {class: 'game'}, button, el('p', {class: 'about', text: game.about})));
    }
    box.append(el('p', {id: 'offer-refused', role: 'alert', hidden: true}));
  }

  async function open(kind) {
    if (busy) return;
    busy = true;
    draw(t('open.opening'));
    let answer;
    try {
      answer = await post('api/open', {session: offer.session, kind});
    } catch {
      answer = {status: 0, body: {}};
    }
    busy = false;
    if (answer.status === 401) {
      stop();
      onExpired();
      return;
    }
    if (answer.status !== 200) {
      draw();
      const refused = $('offer-refused');
      refused.textContent = answer.body.reason || t('status.sign_in_failed');
      refused.hidden = false;
      return;
    }
    opened = true;
    heard(answer.body);
  }

  function heard(state) {
    if (state.table) {
      stop();
      onTable();
      return;
    }
    if (state.thread) { // the game went to a thread of its own: the Activity is to be opened there
      stop();
      say(t('open.in_thread'));
      return;
    }
    const closed = lobby && !state.lobby;
    lobby = state.lobby;
    if (closed) opened = false;
    draw(closed ? t('open.closed') : '');
  }

  async function poll() {
    try {
      const answer = await post('api/channel', {session: offer.session});
      if (answer.status === 401) {
        stop();
        onExpired();
        return;
      }
      if (answer.status === 200 && !busy) heard(answer.body);
    } catch {
      // the bot is restarting: the next poll tries again
    }
    if (!box.hidden) timer = setTimeout(poll, POLL_MS);
  }

  draw();
  if (offer.can_open || lobby) timer = setTimeout(poll, POLL_MS);
}
