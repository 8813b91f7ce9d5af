// Who the player is comes from Discord, never from the page: the Embedded App SDK asks Discord's client
// for an OAuth2 code, the bot exchanges it (api/token) and answers the token and a session bound to that
// user and the table of the activity's channel (docs/activity.md).
//
// Inside Discord the page's query has a frame_id: the real SDK. Without one (the sandbox, the browser
// tests) the SDK's own mock stands in for Discord's client, and its authorize asks the fake Discord named
// by the query (`fake`) for a real code for the query's `user_id`: the backend still exchanges it.

import {DiscordSDK, DiscordSDKMock} from './vendor/embedded-app-sdk.js';

const SCOPES = ['identify', 'guilds'];

export class SignInError extends Error {
  constructor(reason, offer = null) {
    super(reason);
    this.reason = reason; // 'not_in_discord', 'sign_in_failed', 'no_table' ('busy': tried again)
    this.offer = offer; // no_table: the channel session and what the page may open (offer.js)
  }
}

function mockSdk(clientId, query) {
  const fake = query.get('fake');
  if (!fake || !query.get('instance_id')) throw new SignInError('not_in_discord');
  const sdk = new DiscordSDKMock(clientId, query.get('guild_id'), query.get('channel_id'), query.get('location_id'));
  sdk.instanceId = query.get('instance_id');
  sdk._updateCommandMocks({
    authorize: async (args) => {
      const body = new URLSearchParams({
        user_id: query.get('user_id'), client_id: args.client_id, scope: args.scope.join(' '),
      });
      const answer = await fetch(`${fake}/_fake/oauth2/authorize`, {method: 'POST', body});
      if (!answer.ok) throw new SignInError('sign_in_failed');
      return {code: (await answer.json()).code};
    },
    authenticate: async (args) => ({access_token: args.access_token, user: null, scopes: SCOPES}),
  });
  return sdk;
}

async function config() {
  const answer = await fetch('api/config');
  if (!answer.ok) throw new SignInError('sign_in_failed');
  return answer.json();
}

let sdk = null;

// A sign-in the bot could not answer just now (503 "unavailable": in a fleet, the table's process is
// being replaced; 502 "discord": Discord did not answer the code exchange) is tried again with a new
// code after these delays (seconds), then said to have failed.
const RETRY_DELAYS = [0.5, 1, 2, 4, 8];
const TRANSIENT = new Set(['unavailable', 'discord']);

// The session for the websocket (a new code each time: a code is used once).
export async function signIn() {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await signInOnce();
    } catch (error) {
      if (!(error instanceof SignInError) || error.reason !== 'busy') throw error;
      if (attempt >= RETRY_DELAYS.length) throw new SignInError('sign_in_failed');
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS[attempt] * 1000));
  }
}

async function signInOnce() {
  const query = new URLSearchParams(location.search);
  if (sdk === null) {
    const {client_id: clientId} = await config();
    const inDiscord = query.has('frame_id');
    sdk = inDiscord ? new DiscordSDK(clientId, {disableConsoleLogOverride: true}) : mockSdk(clientId, query);
    await sdk.ready();
  }
  let code;
  try {
    ({code} = await sdk.commands.authorize({
      client_id: sdk.clientId, response_type: 'code', state: '', prompt: 'none', scope: SCOPES,
    }));
  } catch (error) {
    throw error instanceof SignInError ? error : new SignInError('sign_in_failed');
  }
  const answer = await fetch('api/token', {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({code, instance_id: sdk.instanceId}),
  });
  if (!answer.ok) {
    const body = await answer.json().catch(() => ({}));
    if (body.error === 'no_table') throw new SignInError('no_table', body.session ? body : null);
    throw new SignInError(TRANSIENT.has(body.error) ? 'busy' : 'sign_in_failed');
  }
  const {access_token: accessToken, session} = await answer.json();
  await sdk.commands.authenticate({access_token: accessToken});
  return session;
}
