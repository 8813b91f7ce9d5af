// The websocket to the table (docs/activity.md): reconnects by itself, with a growing, jittered delay,
// after a drop (a bot restart says `sleep` first); a refused session (close code 4001) signs in again;
// `bye` ends it for good.

const DELAYS = [0.25, 0.5, 1, 2, 4, 8, 15]; // seconds before each new attempt, the last one repeated
const PING_EVERY = 25000; // ms: keeps proxies from closing a quiet socket
export const SESSION_REFUSED = 4001;

export class Connection {
  constructor({session, onFrame, onState, signIn}) {
    this.session = session;
    this.onFrame = onFrame;
    this.onState = onState; // 'connecting', 'open', 'reconnecting', 'restarting', 'closed'
    this.signIn = signIn; // async () => a new session
    this.attempt = 0;
    this.ws = null;
    this.over = false;
    this.pinger = null;
  }

  url() {
    const url = new URL(`ws?session=${encodeURIComponent(this.session)}`, location.href);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    return url.href;
  }

  open() {
    this.onState(this.attempt ? this.restartState || 'reconnecting' : 'connecting');
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.onmessage = (event) => {
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      if (frame.type === 'hello') {
        this.attempt = 0;
        this.restartState = null;
        this.onState('open');
      } else if (frame.type === 'table' && this.restartState === 'waiting') {
        this.restartState = null; // the table is back from its wait for the database
        this.onState('open');
      } else if (frame.type === 'sleep') {
        this.restartState = frame.reason === 'restart' ? 'restarting' : 'waiting';
        this.onState(this.restartState);
      } else if (frame.type === 'bye') {
        this.over = true;
      }
      this.onFrame(frame);
    };
    ws.onopen = () => {
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({type: 'ping'}), PING_EVERY);
    };
    ws.onclose = (event) => this.closed(ws, event.code);
  }

  async closed(ws, code) {
    clearInterval(this.pinger);
    if (ws !== this.ws || this.over) {
      if (this.over) this.onState('closed');
      return;
    }
    if (code === SESSION_REFUSED) {
      try {
        this.session = await this.signIn();
      } catch (error) {
        this.over = true;
        this.onState('closed', error);
        return;
      }
    }
    const delay = DELAYS[Math.min(this.attempt, DELAYS.length - 1)] * (0.8 + 0.4 * Math.random());
    this.attempt += 1;
    this.onState(this.restartState || 'reconnecting');
    setTimeout(() => this.open(), delay * 1000);
  }

  send(frame) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }
}
