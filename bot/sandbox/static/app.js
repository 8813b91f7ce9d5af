// The Skybo sandbox page: a small Discord client for the fake Discord in bot/sandbox.
// Plain JS, no build step. One websocket (/ws): the page sends what its user does (commands, clicks,
// modal submissions) and receives the messages its user may see in its channel, live.
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);
const S = {
  world: null,
  me: null, // user id (string)
  channel: null, // channel id (string)
  dm: false, // the channel is the user's direct messages with the bot
  thread: false, // the channel is a thread (a channel with a parent)
  group: false, // the channel is a group DM (the bot is not in it)
  guild: null, // the server of the channel (string id), null for a DM or a group DM
  offered: null, // names of the slash commands Discord's client offers this user here (the fake decides)
  messages: new Map(), // id -> message view
  dismissed: new Set(),
  failed: new Map(), // message id -> { text: "This interaction failed", rev: the message revision it failed on }
  ws: null,
  rid: 0,
  pending: new Map(),
  command: null, // the command being filled in the composer
  suggestion: 0,
  stick: true, // keep the message list scrolled to the bottom
};
const params = new URLSearchParams(location.search);
const wanted = { user: params.get("user") || "alice", channel: params.get("channel") || "general" };

// ------------------------------------------------------------------ websocket

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  S.ws = ws;
  ws.onopen = () => view(wanted.user, wanted.channel);
  ws.onmessage = (event) => receive(JSON.parse(event.data));
  ws.onclose = () => {
    setStatus("disconnected");
    for (const { reject } of S.pending.values()) reject(new Error("disconnected"));
    S.pending.clear();
    setTimeout(connect, 1000);
  };
}

function send(data) {
  return new Promise((resolve, reject) => {
    // A socket closing or not open yet would drop the frame without a word (send on a CLOSING or
    // CLOSED socket) or throw: the click is refused aloud instead, and works again once back.
    if (!S.ws || S.ws.readyState !== WebSocket.OPEN) {
      reject(new Error("Not connected to the sandbox: try again in a moment"));
      return;
    }
    const rid = ++S.rid;
    S.pending.set(rid, { resolve, reject });
    S.ws.send(JSON.stringify({ ...data, rid }));
  });
}

async function act(data) {
  try {
    const reply = await send(data);
    if (!reply.ok) toast(reply.error || "refused");
    return reply;
  } catch (err) {
    toast(String(err.message || err));
    return { ok: false };
  }
}

function receive(data) {
  switch (data.op) {
    case "reply": {
      const pending = S.pending.get(data.rid);
      if (pending) { S.pending.delete(data.rid); pending.resolve(data); }
      break;
    }
    case "world": S.world = data; if (data.offered !== undefined) S.offered = data.offered; renderWorld(); break;
    case "messages": applyMessages(data); break;
    case "notice": addNotice(data.level, data.text); break;
    case "failed": showFailed(data); break;
    case "modal": openModal(data.interaction, data.modal); break;
  }
}

// fallback: switching users, a place the new user is not in (a group DM, a server) shows the server's first channel
async function view(user, channel, fallback = false) {
  const reply = await send({ op: "view", user, channel, fallback });
  if (!reply.ok) { toast(reply.error); return; }
  if (reply.note) toast(reply.note);
  S.me = reply.user;
  S.channel = reply.channel;
  S.dm = reply.dm;
  S.thread = !!reply.thread;
  S.group = !!reply.group;
  S.guild = reply.guild;
  S.offered = reply.offered;
  if (document.body.classList.contains("nav-open")) setNav(false); // on a phone, choosing a channel closes the list
  const me = userById(S.me);
  wanted.user = me ? me.username : user;
  wanted.channel = reply.name || channel;
  history.replaceState(null, "", `?user=${encodeURIComponent(wanted.user)}&channel=${encodeURIComponent(wanted.channel)}`);
  renderWorld();
}

// ------------------------------------------------------------------ world: sidebar, users, commands

const userById = (id) => S.world && S.world.users.find((u) => u.id === id);
const channelById = (id) => S.world && (S.world.channels.find((c) => c.id === id) || threadById(id) || placeById(id));
const serverById = (id) => S.world && (S.world.servers || []).find((g) => g.id === id);
// A channel of another server, or a group DM (bot/sandbox/places.py); each lists its members' ids.
const placeById = (id) => (S.world.servers || []).flatMap((g) => g.channels).find((c) => c.id === id)
  || (S.world.group_dms || []).find((g) => g.id === id);
// As Discord's client names a group DM without a name: its other members.
const groupName = (g) => g.members.filter((id) => id !== S.me).map((id) => (userById(id) || { name: "?" }).name).join(", ") || g.name;
const threadById = (id) => S.world && (S.world.threads || []).find((t) => t.id === id);
const meUser = () => userById(S.me);
const myLocale = () => (meUser() || {}).locale || "en-US";

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "html") node.innerHTML = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const AVATAR_COLOURS = ["#5865f2", "#757e8a", "#3ba55c", "#faa61a", "#ed4245", "#eb459f"];
function avatar(user) {
  const id = user ? user.id : "0";
  let hash = 0;
  for (const ch of id) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const colour = user && user.bot ? "#5865f2" : AVATAR_COLOURS[hash % AVATAR_COLOURS.length];
  const name = user ? user.name : "?";
  return el("span", { class: "avatar", style: `background:${colour}`, "aria-hidden": "true", text: [...name][0].toUpperCase() });
}

function localeOptions(select, current) {
  select.replaceChildren(...Object.entries(S.world.locales).map(([code, label]) => el("option", { value: code, text: label })));
  if (current) select.value = current;
}

function setStatus(status) {
  const node = $("#bot-status");
  node.textContent = status === "online" ? "bot online" : `bot ${status}`;
  node.className = `bot-status ${status}`;
}

function renderWorld() {
  const w = S.world;
  if (!w) return;
  $("#guild-name").textContent = w.guild.name;
  setStatus(w.bot.status);
  // Each text channel, then its threads under it (archived ones dimmed), as Discord's channel list.
  $("#channels").replaceChildren(...w.channels.flatMap((c) => [
    el("button", { class: `channel${c.id === S.channel ? " active" : ""}`, type: "button", dataset: { name: c.name },
      onclick: () => view(wanted.user, c.name) }, el("span", { class: "hash", text: "#" }), c.name),
    ...(w.threads || []).filter((t) => t.parent_id === c.id).map((t) =>
      el("button", { class: `channel thread${t.id === S.channel ? " active" : ""}${t.archived ? " archived" : ""}`, type: "button",
        dataset: { id: t.id, name: t.name }, title: t.archived ? `${t.name} (archived)` : t.name,
        onclick: () => view(wanted.user, t.id) },
      el("span", { class: "branch", "aria-hidden": "true" }), el("span", { class: "thread-name", text: t.name }))),
  ]));
  // The other servers this user is in (the bot is not a member of them: Skybo reaches them through a
  // user's install), each with its text channels.
  $("#servers").replaceChildren(...(w.servers || []).filter((g) => g.members.includes(S.me)).flatMap((g) => [
    el("div", { class: "section-title server-title", dataset: { server: g.name } }, g.name,
      g.bot ? null : el("span", { class: "install-tag", text: "user install",
        title: `${w.bot.name} is not a member of this server: its commands reach it through a user install (${g.installed.join(", ") || "nobody"})` })),
    ...g.channels.map((c) => el("button", { class: `channel${c.id === S.channel ? " active" : ""}`, type: "button",
      dataset: { name: c.name, server: g.name }, onclick: () => view(wanted.user, c.name) },
    el("span", { class: "hash", text: "#" }), c.name)),
  ]));
  // The bot's direct messages to the user this page plays (long games' letters), with their count.
  const meNow = meUser();
  const dmCount = meNow ? meNow.dms : 0;
  $("#dms").replaceChildren(el("button", { class: `channel dm${S.dm ? " active" : ""}`, type: "button", dataset: { name: "dm" },
    title: `${w.bot.name}'s direct messages to you`, onclick: () => view(wanted.user, "dm") },
  avatar({ id: w.bot.id, name: w.bot.name, bot: true }), el("span", { text: w.bot.name }),
  dmCount ? el("span", { class: "dm-count", text: String(dmCount), title: `${dmCount} direct message${dmCount > 1 ? "s" : ""}` }) : null),
  // and the group DMs this user is in (the bot is not in them), as Discord lists them
  ...(w.group_dms || []).filter((g) => g.members.includes(S.me)).map((g) => el("button", {
    class: `channel group-dm${g.id === S.channel ? " active" : ""}`, type: "button", dataset: { id: g.id },
    title: `Group DM: ${g.members.map((id) => (userById(id) || { name: "?" }).name).join(", ")}`, onclick: () => view(wanted.user, g.id) },
  el("span", { class: "avatar group", "aria-hidden": "true", text: "👥" }), el("span", { class: "group-name", text: groupName(g) }),
  el("span", { class: "members-count", text: `${g.members.length} members` }))));
  $("#users").replaceChildren(...w.users.filter((u) => !u.bot).map((u) =>
    el("button", { class: `user-entry${u.id === S.me ? " active" : ""}`, type: "button", role: "option",
      "aria-selected": u.id === S.me ? "true" : "false", dataset: { username: u.username, role: u.role },
      onclick: () => view(u.username, wanted.channel, true) },
    avatar(u), el("span", { text: u.name }),
    el("span", { class: `role-badge ${u.role}`, text: u.role,
      title: u.role === "owner" ? "Owns the server: every permission (Manage Server, Manage Channels)"
        : "A member: @everyone's default permissions (no Manage Server, no Manage Channels)" }),
    el("span", { class: "locale", text: u.locale }))));
  localeOptions($("#guild-locale"), w.guild.locale);
  const addLocale = $("#add-user-locale");
  if (!addLocale.options.length) localeOptions(addLocale, "en-US");
  const me = meUser();
  if (me) {
    $("#me-avatar").replaceWith(Object.assign(avatar(me), { id: "me-avatar" }));
    $("#me-name").textContent = me.name;
    $("#me-username").textContent = me.username;
    localeOptions($("#me-locale"), me.locale);
  }
  const chan = channelById(S.channel);
  $("#channel-header .hash").textContent = S.dm ? "@" : S.thread ? "🧵" : S.group ? "👥" : "#";
  const parent = S.thread && chan ? channelById(chan.parent_id) : null;
  const server = S.guild && S.guild !== w.guild.id ? serverById(S.guild) : null;
  $("#channel-parent").replaceChildren(...(parent ? [el("button", { type: "button", class: "parent-link", text: `#${parent.name}`,
    onclick: () => view(wanted.user, parent.name) }), el("span", { class: "chevron", text: "›" })]
    : server ? [el("span", { class: "server-name", text: server.name }), el("span", { class: "chevron", text: "›" })] : []));
  if (S.group && chan) {
    const name = groupName(chan);
    $("#channel-name").textContent = name;
    $("#composer-input").placeholder = `Message ${name} — type / to run a command as ${me ? me.name : "…"}`;
    document.title = `${name} · ${me ? me.name : ""} · Skybo sandbox`;
  } else if (S.dm) {
    $("#channel-name").textContent = `${w.bot.name} (direct messages)`;
    $("#composer-input").placeholder = `Message @${w.bot.name} — type / to run a command as ${me ? me.name : "…"}`;
    document.title = `@${w.bot.name} · ${me ? me.name : ""} · Skybo sandbox`;
  } else if (chan) {
    $("#channel-name").textContent = chan.name;
    const archived = S.thread && chan.archived ? " (archived)" : "";
    $("#composer-input").placeholder = `Message ${S.thread ? "" : "#"}${chan.name}${archived} — type / to run a command as ${me ? me.name : "…"}`;
    document.title = `${S.thread ? "" : "#"}${chan.name} · ${me ? me.name : ""} · Skybo sandbox`;
  }
  if (S.command) renderCommandForm();
  renderMessages();
}

// ------------------------------------------------------------------ messages

function compareIds(a, b) {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function applyMessages(data) {
  if (data.reset) { S.messages.clear(); S.failed.clear(); }
  for (const id of data.delete) S.messages.delete(id);
  for (const msg of data.upsert) {
    const before = S.messages.get(msg.id);
    // a failure stays until the message changes past the revision it failed on (a stale click's
    // failure may arrive before the edit that made it stale)
    const failed = S.failed.get(msg.id);
    if (failed && before && JSON.stringify(before.components) !== JSON.stringify(msg.components)
        && (failed.rev == null || msg.rev > failed.rev)) S.failed.delete(msg.id);
    S.messages.set(msg.id, msg);
  }
  renderMessages(data.reset);
}

// Like Discord, the list sticks to the bottom unless the user scrolled up to read.
const nearBottom = (box) => box.scrollHeight - box.scrollTop - box.clientHeight < 120;
function stickToBottom() {
  const box = $("#messages");
  if (S.stick) box.scrollTop = box.scrollHeight;
}

function renderMessages(forceBottom = false) {
  const box = $("#messages");
  if (forceBottom) S.stick = true;
  const ids = [...S.messages.keys()].filter((id) => !S.dismissed.has(id)).sort(compareIds);
  const existing = new Map([...box.querySelectorAll(":scope > .message")].map((n) => [n.dataset.id, n]));
  const nodes = ids.map((id) => {
    const msg = S.messages.get(id);
    const key = JSON.stringify(msg) + (S.failed.has(id) ? S.failed.get(id).text : "") + myLocale() + (S.world ? S.world.users.length : 0);
    const old = existing.get(id);
    if (old && old.dataset.key === key) return old;
    const node = renderMessage(msg);
    node.dataset.key = key;
    return node;
  });
  if (!nodes.length) nodes.push(el("div", { class: "empty", text: "No messages yet. Type / to run one of the bot's commands." }));
  box.replaceChildren(...nodes);
  stickToBottom();
}

function renderMessage(msg) {
  const author = userById(msg.author.id) || { id: msg.author.id, name: msg.author.name, bot: msg.author.bot };
  const mentioned = S.me && (msg.content.includes(`<@${S.me}>`) || msg.content.includes(`<@!${S.me}>`));
  const classes = ["message"];
  if (msg.ephemeral) classes.push("ephemeral");
  if (mentioned) classes.push("mentioned");
  if (msg.interaction) classes.push("has-reply");
  const node = el("article", { class: classes.join(" "), dataset: { id: msg.id } });
  if (msg.interaction) {
    const inter = msg.interaction;
    node.append(el("div", { class: "reply-line" },
      el("span", { class: "who", text: inter.user }),
      inter.command ? [" used ", el("span", { class: "cmd", text: inter.command })]
        : inter.component ? [" clicked ", el("span", { class: "cmd", text: inter.component })] : " clicked a button"));
  }
  node.append(avatar(author));
  const time = new Date(msg.timestamp);
  node.append(el("div", { class: "msg-header" },
    el("span", { class: "author", text: author.name }),
    author.bot ? el("span", { class: "bot-tag", text: "bot" }) : null,
    el("time", { class: "time", datetime: msg.timestamp, text: time.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) })));
  if (msg.type === 18) { // THREAD_CREATED: "Alice started a thread: name"
    node.classList.add("system");
    node.append(el("div", { class: "system-line" }, "🧵 ", el("span", { class: "author", text: author.name }), " started a thread: ",
      el("strong", { text: msg.content })));
    return node;
  }
  if (msg.loading) {
    node.append(el("div", { class: "loading" }, `${author.name} is thinking`, el("span", { class: "dots" })));
  }
  if (msg.content) {
    const content = el("div", { class: "content md", html: markdown(msg.content) });
    if (msg.edited) content.append(" ", el("span", { class: "edited", text: "(edited)" }));
    node.append(content);
  }
  for (const embed of msg.embeds || []) node.append(renderEmbed(embed));
  for (const att of msg.attachments || []) node.append(renderAttachment(att));
  if (msg.components && msg.components.length) {
    node.append(el("div", { class: "components" }, msg.components.map((c) => renderComponent(c, msg))));
  }
  if (msg.thread) node.append(renderThreadCard(msg.thread));
  if (msg.starter) {
    node.classList.add("starter");
    node.append(el("div", { class: "starter-note", text: "The message this thread was started from" }));
  }
  if (S.failed.has(msg.id)) node.append(el("div", { class: "failed", text: S.failed.get(msg.id).text }));
  if (msg.ephemeral) {
    node.append(el("div", { class: "ephemeral-note" }, "👁 Only you can see this • ",
      el("button", { type: "button", onclick: () => { S.dismissed.add(msg.id); renderMessages(); } }, "Dismiss message")));
  }
  return node;
}

// A message that started a thread: the thread's name, its message count and a link into it.
function renderThreadCard(thread) {
  const count = `${thread.messages} message${thread.messages === 1 ? "" : "s"}`;
  return el("div", { class: `thread-card${thread.archived ? " archived" : ""}`, dataset: { threadId: thread.id } },
    el("span", { class: "thread-icon", "aria-hidden": "true", text: "🧵" }),
    el("a", { class: "thread-link", href: `?user=${encodeURIComponent(wanted.user)}&channel=${thread.id}`,
      onclick: (e) => { e.preventDefault(); view(wanted.user, thread.id); } }, thread.name),
    el("span", { class: "thread-meta", text: thread.archived ? `${count} · archived` : count }));
}

function colour(value, fallback) {
  return typeof value === "number" ? `#${value.toString(16).padStart(6, "0")}` : fallback;
}

function img(url, attrs = {}) {
  return typeof url === "string" && /^(\/files\/|https?:|data:image\/)/.test(url)
    ? el("img", { src: url, alt: attrs.alt || "", class: attrs.class, onload: stickToBottom }) : null;
}

function renderEmbed(embed) {
  const body = el("div", { class: "body" });
  if (embed.author && embed.author.name) {
    body.append(el("div", { class: "e-author" }, img(embed.author.icon_url), embed.author.name));
  }
  if (embed.title) {
    const title = el("div", { class: "e-title md", html: markdown(embed.title) });
    const target = typeof embed.url === "string" ? sandboxTarget(embed.url) : null;
    body.append(!embed.url ? title : target
      ? el("a", { class: "jump", href: jumpHref(target.channel, target.message), dataset: { channel: target.channel, message: target.message || "" } }, title)
      : el("a", { href: embed.url, target: "_blank", rel: "noreferrer" }, title));
  }
  if (embed.description) body.append(el("div", { class: "e-desc md", html: markdown(embed.description) }));
  if (embed.fields && embed.fields.length) {
    body.append(el("div", { class: "fields" }, embed.fields.map((f) =>
      el("div", { class: `field${f.inline ? " inline" : ""}` },
        el("div", { class: "name md", html: markdown(f.name || "") }),
        el("div", { class: "value md", html: markdown(f.value || "") })))));
  }
  const node = el("div", { class: "embed", style: `border-left-color:${colour(embed.color, "#1e1f22")}` }, body,
    embed.thumbnail ? img(embed.thumbnail.url, { class: "e-thumb" }) : null);
  if (embed.image) node.append(img(embed.image.url, { class: "e-image" }));
  if (embed.footer || embed.timestamp) {
    const parts = [embed.footer && embed.footer.text, embed.timestamp && new Date(embed.timestamp).toLocaleString()].filter(Boolean);
    node.append(el("div", { class: "e-footer" }, embed.footer ? img(embed.footer.icon_url) : null, parts.join(" • ")));
  }
  return node;
}

function renderAttachment(att) {
  if ((att.content_type || "").startsWith("image/") || /\.(png|jpe?g|gif|webp)$/i.test(att.filename)) {
    const image = img(att.url, { class: "attachment-img", alt: att.description || att.filename });
    image.addEventListener("click", () => window.open(att.url, "_blank"));
    return image;
  }
  return el("a", { class: "attachment-file", href: att.url, download: att.filename }, "📄 ", att.filename, ` (${att.size} bytes)`);
}

// A custom emoji is a picture the sandbox serves (/emojis/<id>.png, from the fake's application
// emojis); without one (the fake lacks it) the page writes :name:, as Discord's client does for an
// emoji it cannot load.
const emojiUrl = (id) => `/emojis/${id}.png`;
function emoji(e) {
  if (!e) return null;
  if (e.id) {
    const text = `:${e.name}:`;
    if (!S.world || !S.world.emoji_images) return el("span", { class: "emoji", title: text, text });
    const image = el("img", { class: "emoji custom", src: emojiUrl(e.id), alt: text, title: text, dataset: { emojiId: e.id } });
    image.addEventListener("error", () => image.replaceWith(el("span", { class: "emoji", title: text, text })), { once: true });
    return image;
  }
  return el("span", { class: "emoji", text: e.name });
}

async function click(msg, customId, values, button) {
  if (button) button.classList.add("pending");
  S.failed.delete(msg.id);
  // rev: the revision this page shows; the server clicks on it, as Discord's client would
  const reply = await act({ op: "click", message: msg.id, rev: msg.rev, custom_id: customId, values });
  if (button) button.classList.remove("pending");
  return reply;
}

// Components, legacy (action rows, buttons, selects) and V2 (flag IS_COMPONENTS_V2: containers, sections,
// text displays, thumbnails, media galleries, files, separators), drawn as Discord's client draws them.
function renderComponent(comp, msg) {
  switch (comp.type) {
    case 1: return el("div", { class: "row" }, (comp.components || []).map((c) => renderComponent(c, msg)));
    case 2: {
      const label = comp.label || "";
      if (comp.style === 5) {
        const target = typeof comp.url === "string" ? sandboxTarget(comp.url) : null;
        if (target) { // a link button to a Discord message: inside the sandbox too
          return el("a", { class: "btn s5 jump", href: jumpHref(target.channel, target.message), title: comp.url,
            dataset: { channel: target.channel, message: target.message || "" } }, emoji(comp.emoji), label);
        }
        return el("a", { class: "btn s5", href: comp.url, target: "_blank", rel: "noreferrer" }, emoji(comp.emoji), label, " ↗");
      }
      const button = el("button", { class: `btn s${comp.style || 2}`, type: "button", disabled: !!comp.disabled,
        dataset: { customId: comp.custom_id || "" }, "aria-label": label || (comp.emoji && comp.emoji.name) || "button" },
      emoji(comp.emoji), label ? el("span", { class: "label", text: label }) : null);
      button.addEventListener("click", () => click(msg, comp.custom_id, undefined, button));
      return button;
    }
    case 3: case 5: case 6: case 7: case 8: return renderSelect(comp, msg);
    case 9: return el("div", { class: "v2-section" }, // text on the left, its accessory on the right
      el("div", { class: "v2-section-text" }, (comp.components || []).map((c) => renderComponent(c, msg))),
      comp.accessory ? el("div", { class: `v2-accessory${comp.accessory.type === 11 ? " thumb" : ""}` }, renderComponent(comp.accessory, msg)) : null);
    case 10: return el("div", { class: "v2-text md", html: markdown(comp.content || "") });
    case 11: return spoiler(img(comp.media && comp.media.url, { class: "v2-thumbnail", alt: comp.description || "" }), comp.spoiler);
    case 12: {
      const items = (comp.items || []).slice(0, 10);
      return el("div", { class: `v2-gallery n${items.length}` }, items.map((i) =>
        spoiler(img(i.media && i.media.url, { alt: i.description || "", class: "v2-media" }), i.spoiler)));
    }
    case 13: {
      const name = comp.name || (comp.file && comp.file.url ? decodeURIComponent(comp.file.url.split("/").pop()) : "file");
      return el("a", { class: "attachment-file v2-file", href: comp.file && comp.file.url, download: name },
        "📄 ", el("span", { class: "file-name", text: name }), comp.size != null ? el("span", { class: "file-size", text: size(comp.size) }) : null);
    }
    case 14: return el("hr", { class: `v2-separator spacing-${comp.spacing === 2 ? "large" : "small"}${comp.divider === false ? " invisible" : ""}` });
    case 17: {
      const accent = colour(comp.accent_color, null);
      return el("div", { class: `v2-container${accent ? " accent" : ""}${comp.spoiler ? " spoiler-box" : ""}`,
        style: accent ? `--accent:${accent}` : null, dataset: { accent: accent || "" } },
      (comp.components || []).map((c) => renderComponent(c, msg)));
    }
    default: return el("div", { class: "loading", text: `(component type ${comp.type})` });
  }
}

function spoiler(node, hidden) {
  if (!node || !hidden) return node;
  const box = el("div", { class: "spoiler-media", title: "Spoiler: click to show" }, node);
  box.addEventListener("click", () => box.classList.add("shown"), { once: true });
  return box;
}

function size(bytes) {
  return bytes < 1024 ? `${bytes} bytes` : bytes < 1048576 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1048576).toFixed(2)} MB`;
}

function renderSelect(comp, msg) {
  const multiple = (comp.max_values || 1) > 1;
  const select = el("select", { class: "select", disabled: !!comp.disabled, multiple, dataset: { customId: comp.custom_id } });
  if (!multiple) select.append(el("option", { value: "", text: comp.placeholder || "Make a selection", disabled: true, selected: true }));
  let options;
  if (comp.type === 3) options = (comp.options || []).map((o) => [o.value, (o.emoji ? `${o.emoji.id ? `:${o.emoji.name}:` : o.emoji.name} ` : "") + o.label, o.default]);
  else if (comp.type === 8) options = S.world.channels.map((c) => [c.id, `#${c.name}`]);
  else options = S.world.users.map((u) => [u.id, `@${u.name}`]);
  for (const [value, label, selected] of options) select.append(el("option", { value, text: label, selected: !!selected }));
  const submit = () => click(msg, comp.custom_id, [...select.selectedOptions].map((o) => o.value).filter(Boolean));
  if (multiple) {
    return el("div", { class: "row" }, select, el("button", { class: "btn s1", type: "button", onclick: submit }, "Choose"));
  }
  select.addEventListener("change", submit);
  return select;
}

function showFailed(data) {
  // Discord writes it under the clicked message; a command's failure has no message to write under
  if (data.message && S.messages.has(data.message)) {
    S.failed.set(data.message, { text: data.text, rev: data.rev });
    renderMessages();
  } else {
    toast(data.text);
  }
}

// ------------------------------------------------------------------ markdown (Discord's flavour)

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// A link to a Discord channel or message (a busy channel's "here it is", a long game's letter, a thread's
// result): in the sandbox it goes to that channel of this page (and to that message in it, scrolled to and
// lit a moment), as Discord's client does, instead of leaving for discord.com. Any other link opens apart.
const DISCORD_LINK = /^https:\/\/(?:(?:ptb|canary)\.)?discord(?:app)?\.com\/channels\/(@me|\d+)\/(\d+)(?:\/(\d+))?\/?$/;
function sandboxTarget(url) {
  const match = DISCORD_LINK.exec(url);
  if (!match) return null;
  const [, guild, channel, message] = match;
  return { channel: guild === "@me" ? "dm" : channel, message: message || null };
}
function jumpHref(channel, message) {
  return `?user=${encodeURIComponent(wanted.user)}&channel=${encodeURIComponent(channel)}${message ? `#message-${message}` : ""}`;
}
function linkHtml(url, label) {
  // url and label are HTML-escaped already (inline's text is)
  const target = sandboxTarget(url.replace(/&amp;/g, "&"));
  if (!target) return `<a href="${url}" target="_blank" rel="noreferrer">${label}</a>`;
  return `<a class="jump" href="${escapeHtml(jumpHref(target.channel, target.message))}" data-channel="${target.channel}"`
    + ` data-message="${target.message || ""}" title="${url}">${label}</a>`;
}
async function jumpTo(channel, message) {
  const here = channel === "dm" ? S.dm : channel === S.channel;
  if (!here) await view(wanted.user, channel);
  if (!message) return;
  const node = document.querySelector(`#messages .message[data-id="${message}"]`);
  if (!node) { toast("That message is not in this channel any more."); return; }
  S.stick = false;
  node.scrollIntoView({ block: "center" });
  for (const lit of document.querySelectorAll("#messages .message.highlight")) lit.classList.remove("highlight");
  node.classList.add("highlight"); // lit, then fading out (style.css): the message jumped to
}
document.addEventListener("click", (event) => {
  const link = event.target instanceof Element ? event.target.closest("a.jump") : null;
  if (!link || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
  event.preventDefault();
  jumpTo(link.dataset.channel, link.dataset.message || null);
});

function inline(text) {
  // text is already HTML-escaped
  return text
    // Discord: a backslash before any ASCII punctuation shows that character as it is (escaped display
    // names); the text was HTML-escaped first, so "\<" arrives as "\&lt;".
    .replace(/\\&(lt|gt|amp|quot|#39);/g, (_, name) => `&#${{ lt: 60, gt: 62, amp: 38, quot: 34, "#39": 39 }[name]};`)
    .replace(/\\([!-\/:-@\[-`{-~])/g, (_, c) => `&#${c.charCodeAt(0)};`)
    .replace(/&lt;@!?(\d+)&gt;/g, (_, id) => {
      const user = userById(id);
      return `<span class="mention">@${escapeHtml(user ? user.name : "unknown-user")}</span>`;
    })
    .replace(/&lt;#(\d+)&gt;/g, (_, id) => {
      const chan = channelById(id);
      if (!chan) return '<span class="mention">#unknown</span>';
      return `<a class="mention jump" href="${escapeHtml(jumpHref(id, null))}" data-channel="${id}">#${escapeHtml(chan.name)}</a>`;
    })
    .replace(/&lt;@&amp;(\d+)&gt;/g, '<span class="mention">@role</span>')
    .replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, (_, label, url) => linkHtml(url, label))
    .replace(/(^|[\s(])(https?:\/\/[^\s<]+[^\s<.,:;"')\]])/g, (_, before, url) => before + linkHtml(url, url))
    .replace(/\*\*\*([^*]+?)\*\*\*/g, "<strong><em>$1</em></strong>")
    .replace(/\*\*(.+?)\*\*/g, "<strong>$1</strong>")
    .replace(/__(.+?)__/g, "<u>$1</u>")
    .replace(/(^|[^*\w])\*(?!\s)([^*]+?)\*(?!\w)/g, "$1<em>$2</em>")
    .replace(/(^|[^_\w])_(?!\s)([^_]+?)_(?!\w)/g, "$1<em>$2</em>")
    .replace(/~~(.+?)~~/g, "<s>$1</s>")
    .replace(/\|\|(.+?)\|\|/g, '<span class="spoiler" onclick="this.classList.add(\'shown\')">$1</span>');
}

// <t:UNIX:STYLE>, in the reader's Discord language: t 16:20, T 16:20:30, d 20/04/2021, D 20 April 2021,
// f (default) 20 April 2021 16:20, F Tuesday, 20 April 2021 16:20, R "in 30 seconds" (kept live).
const TIME_STYLES = {
  t: { hour: "2-digit", minute: "2-digit" },
  T: { hour: "2-digit", minute: "2-digit", second: "2-digit" },
  d: { year: "numeric", month: "2-digit", day: "2-digit" },
  D: { year: "numeric", month: "long", day: "numeric" },
  f: { year: "numeric", month: "long", day: "numeric", hour: "2-digit", minute: "2-digit" },
  F: { weekday: "long", year: "numeric", month: "long", day: "numeric", hour: "2-digit", minute: "2-digit" },
};
function timestampText(secs, style) {
  const date = new Date(Number(secs) * 1000);
  if (style === "R") return relative(date);
  return new Intl.DateTimeFormat(myLocale(), TIME_STYLES[style] || TIME_STYLES.f).format(date);
}
function timestampHtml(secs, style) {
  const full = new Intl.DateTimeFormat(myLocale(), TIME_STYLES.F).format(new Date(Number(secs) * 1000));
  return `<time class="timestamp" data-ts="${secs}" data-style="${style}" title="${escapeHtml(full)}">${escapeHtml(timestampText(secs, style))}</time>`;
}

function relative(date) {
  const secs = Math.round((date - Date.now()) / 1000);
  const abs = Math.abs(secs);
  const [value, unit] = abs < 60 ? [secs, "second"] : abs < 3600 ? [Math.round(secs / 60), "minute"]
    : abs < 86400 ? [Math.round(secs / 3600), "hour"] : abs < 2592000 ? [Math.round(secs / 86400), "day"]
      : abs < 31536000 ? [Math.round(secs / 2592000), "month"] : [Math.round(secs / 31536000), "year"];
  return new Intl.RelativeTimeFormat(myLocale(), { numeric: "always" }).format(value, unit);
}

// The relative timestamps count by themselves, as in Discord's client (a turn's deadline).
function tickTimestamps() {
  for (const node of document.querySelectorAll('time.timestamp[data-style="R"]')) {
    const text = timestampText(node.dataset.ts, "R");
    if (node.textContent !== text) node.textContent = text;
  }
}

function markdown(source) {
  // code blocks and inline code first, so nothing inside them is interpreted
  const codes = [];
  const stash = (html) => `\u0000${codes.push(html) - 1}\u0000`;
  let text = source.replace(/```(?:([\w+-]+)\n)?([\s\S]*?)```/g, (_, lang, code) =>
    stash(`<pre><code>${escapeHtml(code.replace(/^\n/, "").replace(/\n$/, ""))}</code></pre>`));
  text = text.replace(/``([^`]+?)``|`([^`\n]+?)`/g, (_, a, b) => stash(`<code>${escapeHtml(a || b)}</code>`));
  // custom emojis and timestamps are whole tokens: nothing in them is markdown
  text = text.replace(/<(a?):(\w{2,32}):(\d+)>/g, (_, animated, name, id) => {
    const label = escapeHtml(`:${name}:`);
    return stash(S.world && S.world.emoji_images
      ? `<img class="emoji custom" src="${emojiUrl(id)}" alt="${label}" title="${label}" data-emoji-id="${id}" onerror="this.replaceWith(this.alt)">`
      : `<span class="emoji" title="${label}">${label}</span>`);
  });
  text = text.replace(/<t:(-?\d+)(?::([tTdDfFR]))?>/g, (_, secs, style) => stash(timestampHtml(secs, style || "f")));
  const lines = escapeHtml(text).split("\n");
  const out = [];
  let list = false;
  for (const line of lines) {
    let m;
    if ((m = /^(#{1,3}) (.*)$/.exec(line))) { closeList(); out.push(`<h${m[1].length}>${inline(m[2])}</h${m[1].length}>`); continue; }
    if ((m = /^-# (.*)$/.exec(line))) { closeList(); out.push(`<div class="subtext">${inline(m[1])}</div>`); continue; }
    if ((m = /^&gt; ?(.*)$/.exec(line))) { closeList(); out.push(`<blockquote>${inline(m[1]) || "&nbsp;"}</blockquote>`); continue; }
    if ((m = /^\s*[-*] (.*)$/.exec(line))) { if (!list) { out.push("<ul>"); list = true; } out.push(`<li>${inline(m[1])}</li>`); continue; }
    closeList();
    out.push(inline(line) + "\n");
  }
  closeList();
  function closeList() { if (list) { out.push("</ul>"); list = false; } }
  let html = out.join("").replace(/\n$/, "");
  html = html.replace(/(<\/(?:h[1-3]|div|blockquote|ul)>)\n/g, "$1");
  return html.replace(/\u0000(\d+)\u0000/g, (_, i) => codes[Number(i)]);
}

// ------------------------------------------------------------------ slash commands

function localized(obj, field) {
  const loc = myLocale();
  const table = obj[`${field}_localizations`] || {};
  return table[loc] || table[loc.split("-")[0]] || obj[field];
}

// Every runnable command line: /name, /name sub, /name group sub.
function commandLines() {
  const lines = [];
  // only what Discord's client offers here (its contexts, its installations: the fake decides)
  for (const cmd of ((S.world && S.world.commands) || []).filter((c) => !S.offered || S.offered.includes(c.name))) {
    if ((cmd.type || 1) !== 1) continue;
    const subs = (cmd.options || []).filter((o) => o.type === 1 || o.type === 2);
    if (!subs.length) { lines.push({ cmd, path: [], leaf: cmd, label: `/${localized(cmd, "name")}` }); continue; }
    for (const sub of subs) {
      if (sub.type === 1) lines.push({ cmd, path: [sub.name], leaf: sub, label: `/${localized(cmd, "name")} ${localized(sub, "name")}` });
      else for (const leaf of (sub.options || []).filter((o) => o.type === 1)) {
        lines.push({ cmd, path: [sub.name, leaf.name], leaf, label: `/${localized(cmd, "name")} ${localized(sub, "name")} ${localized(leaf, "name")}` });
      }
    }
  }
  return lines;
}

function matchingLines() {
  const typed = $("#composer-input").value.trim().toLowerCase().replace(/^\//, "");
  return commandLines().filter((line) => {
    const label = line.label.slice(1).toLowerCase();
    const canonical = [line.cmd.name, ...line.path].join(" ");
    return label.startsWith(typed) || canonical.startsWith(typed) || (typed && label.includes(typed));
  });
}

function renderSuggestions() {
  const box = $("#suggestions");
  const value = $("#composer-input").value;
  if (S.command || !value.startsWith("/")) { box.hidden = true; return; }
  const lines = matchingLines();
  S.suggestion = Math.min(S.suggestion, Math.max(0, lines.length - 1));
  box.replaceChildren(el("div", { class: "heading", text: lines.length ? (S.world.bot.name || "bot") : "No command matches" }),
    ...lines.map((line, i) => el("div", { class: `suggestion${i === S.suggestion ? " active" : ""}`, role: "option",
      dataset: { command: [line.cmd.name, ...line.path].join(" ") }, onmousedown: (e) => { e.preventDefault(); pick(line); } },
    el("span", { class: "name", text: line.label }),
    el("span", { class: "opts", text: (line.leaf.options || []).filter((o) => o.required).map((o) => localized(o, "name")).join(" ") }),
    el("span", { class: "desc", text: localized(line.leaf, "description") || "" }))));
  box.hidden = false;
}

function pick(line) {
  S.command = { ...line, values: {} };
  $("#composer-input").value = "";
  renderSuggestions();
  renderCommandForm();
  const first = $("#command-form .opt input, #command-form .opt select");
  (first || $("#composer-input")).focus();
}

function cancelCommand() {
  S.command = null;
  $("#command-form").hidden = true;
  $("#command-form").replaceChildren();
  $("#composer-input").focus();
}

function optionInput(opt, values) {
  const name = opt.name;
  const current = values[name];
  const set = (value) => { values[name] = value; };
  const blank = opt.required ? "choose…" : "—";
  let input;
  if (opt.choices && opt.choices.length) {
    input = el("select", {}, el("option", { value: "", text: blank }),
      opt.choices.map((c, i) => el("option", { value: String(i), text: localized(c, "name"), selected: current === c.value })));
    input.addEventListener("change", () => set(input.value === "" ? undefined : opt.choices[Number(input.value)].value));
  } else if (opt.type === 4 || opt.type === 10) {
    input = el("input", { type: "number", step: opt.type === 4 ? "1" : "any", min: opt.min_value, max: opt.max_value,
      placeholder: opt.min_value !== undefined && opt.max_value !== undefined ? `${opt.min_value}–${opt.max_value}` : "", value: current });
    input.addEventListener("input", () => set(input.value === "" ? undefined : (opt.type === 4 ? parseInt(input.value, 10) : parseFloat(input.value))));
  } else if (opt.type === 5) {
    input = el("select", {}, el("option", { value: "", text: blank }), el("option", { value: "true", text: "True", selected: current === true }),
      el("option", { value: "false", text: "False", selected: current === false }));
    input.addEventListener("change", () => set(input.value === "" ? undefined : input.value === "true"));
  } else if (opt.type === 6 || opt.type === 9) {
    input = el("select", {}, el("option", { value: "", text: blank }),
      S.world.users.map((u) => el("option", { value: u.id, text: `@${u.name}`, selected: current === u.id })));
    input.addEventListener("change", () => set(input.value || undefined));
  } else if (opt.type === 7) {
    input = el("select", {}, el("option", { value: "", text: blank }),
      S.world.channels.map((c) => el("option", { value: c.id, text: `#${c.name}`, selected: current === c.id })));
    input.addEventListener("change", () => set(input.value || undefined));
  } else {
    const listId = `ac-${name}`;
    input = el("input", { type: "text", minlength: opt.min_length, maxlength: opt.max_length, value: current, list: opt.autocomplete ? listId : null });
    input.addEventListener("input", () => { set(input.value || undefined); if (opt.autocomplete) autocomplete(name, listId); });
    if (opt.autocomplete) {
      input.addEventListener("focus", () => autocomplete(name, listId));
      return [input, el("datalist", { id: listId })];
    }
  }
  return [input];
}

function renderCommandForm() {
  const form = $("#command-form");
  const command = S.command;
  const options = (command.leaf.options || []).filter((o) => o.type !== 1 && o.type !== 2);
  const ordered = [...options.filter((o) => o.required), ...options.filter((o) => !o.required)];
  form.replaceChildren(
    el("span", { class: "cmd-pill", text: command.label }),
    ...ordered.map((opt) => el("label", { class: `opt${opt.required ? " required" : ""}`, title: localized(opt, "description") || "", dataset: { option: opt.name } },
      el("span", { class: "opt-name", text: localized(opt, "name") }), ...optionInput(opt, command.values))),
    el("button", { class: "btn s1 send", type: "submit" }, "Send"),
    el("button", { class: "cancel", type: "button", title: "Cancel (Esc)", onclick: cancelCommand }, "×"),
    el("div", { class: "cmd-desc", text: localized(command.leaf, "description") || "" }));
  form.hidden = false;
}

async function autocomplete(focused, listId) {
  const command = S.command;
  if (!command) return;
  const reply = await send({ op: "autocomplete", name: command.cmd.name, path: command.path, focused, options: command.values });
  const list = document.getElementById(listId);
  if (reply.ok && list) list.replaceChildren(...reply.choices.map((c) => el("option", { value: String(c.value), text: localized(c, "name") })));
}

async function runCommand() {
  const command = S.command;
  if (!command) return;
  const missing = (command.leaf.options || []).filter((o) => o.required && command.values[o.name] === undefined);
  if (missing.length) { toast(`Missing required option(s): ${missing.map((o) => localized(o, "name")).join(", ")}`); return; }
  const reply = await act({ op: "command", name: command.cmd.name, path: command.path, options: command.values });
  if (reply.ok) cancelCommand();
}

function setupComposer() {
  const input = $("#composer-input");
  input.addEventListener("input", () => { S.suggestion = 0; renderSuggestions(); });
  input.addEventListener("blur", () => setTimeout(() => { $("#suggestions").hidden = true; }, 100));
  input.addEventListener("focus", renderSuggestions);
  input.addEventListener("keydown", async (e) => {
    const box = $("#suggestions");
    if (!box.hidden) {
      const lines = matchingLines();
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        S.suggestion = (S.suggestion + (e.key === "ArrowDown" ? 1 : lines.length - 1)) % Math.max(1, lines.length);
        renderSuggestions();
        return;
      }
      if ((e.key === "Enter" || e.key === "Tab") && lines.length) { e.preventDefault(); pick(lines[S.suggestion]); return; }
      if (e.key === "Escape") { box.hidden = true; return; }
    }
    if (e.key === "Escape" && S.command) { cancelCommand(); return; }
    if (e.key === "Enter") {
      e.preventDefault();
      if (S.command) { runCommand(); return; }
      const text = input.value.trim();
      if (!text) return;
      if (text.startsWith("/")) { toast(`Unknown command ${text.split(" ")[0]}`); return; }
      const reply = await act({ op: "say", content: text });
      if (reply.ok) input.value = "";
    }
  });
  const form = $("#command-form");
  form.addEventListener("submit", (e) => { e.preventDefault(); runCommand(); });
  form.addEventListener("keydown", (e) => { if (e.key === "Escape") cancelCommand(); });
}

// ------------------------------------------------------------------ modals (type 9 answers)

function openModal(interactionId, modal) {
  // Discord's modal components: a label (18) around a text input (4), a string select (3), a radio
  // group (21), a checkbox group (22) or a checkbox (23), each showing what the bot pre-filled; legacy
  // rows of text inputs (1); text displays (10).
  const dialog = $("#modal");
  const inputs = [];
  const hint = (text) => (text ? el("span", { class: "hint", text }) : null);
  const choice = (type, name, o) => el("label", { class: "choice" },
    el("input", { type, name, value: o.value, checked: !!o.default }), o.label,
    o.description ? el("span", { class: "hint", text: o.description }) : null);
  const field = (comp, labelText, description) => {
    if (comp.type === 4) {
      const attrs = { "data-custom-id": comp.custom_id, placeholder: comp.placeholder, required: comp.required !== false,
        minlength: comp.min_length, maxlength: comp.max_length, "aria-label": labelText || comp.label || undefined };
      const input = comp.style === 2 ? el("textarea", { ...attrs, rows: 4 }, comp.value || "") : el("input", { ...attrs, value: comp.value });
      inputs.push(() => [comp.custom_id, input.value]);
      return el("label", {}, labelText || comp.label || "", hint(description), input);
    }
    if (comp.type === 3) {
      const select = el("select", { multiple: (comp.max_values || 1) > 1, "aria-label": labelText || undefined },
        (comp.options || []).map((o) => el("option", { value: o.value, text: o.label, selected: !!o.default })));
      inputs.push(() => [comp.custom_id, [...select.selectedOptions].map((o) => o.value)]);
      return el("label", {}, labelText || "", hint(description), select);
    }
    if (comp.type === 21 || comp.type === 22) {
      const type = comp.type === 21 ? "radio" : "checkbox";
      const group = el("div", { class: "choices", role: comp.type === 21 ? "radiogroup" : "group", "aria-label": labelText || "" },
        (comp.options || []).map((o) => choice(type, comp.custom_id, o)));
      const picked = () => [...group.querySelectorAll("input:checked")].map((i) => i.value);
      inputs.push(() => [comp.custom_id, comp.type === 21 ? (picked()[0] ?? null) : picked()]);
      return el("div", { class: "field" }, el("span", { class: "field-label", text: labelText || "" }), hint(description), group);
    }
    if (comp.type === 23) {
      const box = el("input", { type: "checkbox", checked: !!comp.default, "aria-label": labelText || undefined });
      inputs.push(() => [comp.custom_id, box.checked]);
      return el("label", { class: "choice" }, box, labelText || "", hint(description));
    }
    return null;
  };
  const body = el("div", { class: "modal-body" });
  for (const comp of modal.components || []) {
    if (comp.type === 1) for (const c of comp.components || []) body.append(field(c) || "");
    else if (comp.type === 18) body.append(field(comp.component, comp.label, comp.description) || "");
    else if (comp.type === 10) body.append(el("div", { class: "md", html: markdown(comp.content || "") }));
  }
  const form = el("form", { method: "dialog" },
    el("div", { class: "modal-head", text: modal.title || "" }), body,
    el("div", { class: "modal-foot" },
      el("button", { class: "link", type: "button", onclick: () => dialog.close() }, "Cancel"),
      el("button", { class: "btn s1", type: "submit" }, "Submit")));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const reply = await act({ op: "modal", interaction: interactionId, values: Object.fromEntries(inputs.map((f) => f())) });
    if (reply.ok) dialog.close();
  });
  dialog.replaceChildren(form);
  dialog.showModal();
}

// ------------------------------------------------------------------ notices & toasts

function addNotice(level, text) {
  const box = $("#notices");
  const node = el("div", { class: `notice ${level}` }, el("span", { class: "text", text }),
    el("button", { type: "button", title: "Dismiss", onclick: () => node.remove() }, "×"));
  box.append(node);
  while (box.children.length > 5) box.firstChild.remove();
}

function toast(text) {
  const node = el("div", { class: "toast", role: "alert", text });
  $("#toasts").append(node);
  setTimeout(() => node.remove(), 5000);
}

// ------------------------------------------------------------------ sidebar controls

// On a phone (a page narrower than 700 px: style.css's media query) the channel list hides behind a button, as in
// Discord's phone app: messages take the whole width.
function setNav(open) {
  document.body.classList.toggle("nav-open", open);
  $("#nav-toggle").setAttribute("aria-expanded", open ? "true" : "false");
  $("#nav-backdrop").hidden = !open;
}

function setupSidebar() {
  $("#nav-toggle").addEventListener("click", () => setNav(!document.body.classList.contains("nav-open")));
  $("#nav-backdrop").addEventListener("click", () => setNav(false));
  $("#add-user").addEventListener("submit", async (e) => {
    e.preventDefault();
    const name = $("#add-user-name").value.trim();
    if (!name) return;
    const reply = await act({ op: "add_user", name, locale: $("#add-user-locale").value });
    if (reply.ok) { $("#add-user-name").value = ""; }
  });
  $("#me-locale").addEventListener("change", (e) => act({ op: "locale", user: S.me, locale: e.target.value }));
  $("#guild-locale").addEventListener("change", (e) => act({ op: "guild_locale", locale: e.target.value }));
  $("#open-activity").addEventListener("click", openActivity);
  $("#activity-close").addEventListener("click", closeActivity);
  $("#activity").addEventListener("close", () => { $("#activity-frame").src = "about:blank"; });
  $("#restart-bot").addEventListener("click", async () => {
    const button = $("#restart-bot");
    button.disabled = true;
    await act({ op: "restart_bot" });
    button.disabled = false;
  });
}

// The Activity (issue 50): the bot serves its page on a port of its own; the page, without Discord's
// frame_id, stands the SDK's mock in for Discord's client and asks the fake Discord for a real code.
async function openActivity() {
  const reply = await act({ op: "activity", user: S.me, channel: S.channel });
  if (!reply.ok) return;
  $("#activity-user").textContent = (meUser() || {}).name || "";
  $("#activity-frame").src = `${location.protocol}//${location.hostname}:${reply.port}${reply.path}`;
  $("#activity").showModal();
}

function closeActivity() { $("#activity").close(); }

setupComposer();
setupSidebar();
$("#messages").addEventListener("scroll", () => { S.stick = nearBottom($("#messages")); });
setInterval(tickTimestamps, 1000);
connect();
