// The page's words in English or French (strings/<language>.json). Where the bot says the same thing,
// the page says it in the bot's very words (strings/same-as-bot.json names the bot's key; a test holds it).

let words = {};
let language = 'en';

export function guessLanguage() {
  return (navigator.language || '').toLowerCase().startsWith('fr') ? 'fr' : 'en';
}

export async function load(lang) {
  const wanted = lang === 'fr' ? 'fr' : 'en';
  if (wanted === language && Object.keys(words).length) return;
  const answer = await fetch(`strings/${wanted}.json`);
  words = await answer.json();
  language = wanted;
  document.documentElement.lang = wanted;
}

export function t(key, params = {}) {
  const template = words[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

// bot.i18n.plural: English "one" for 1 only, French for 0 and 1.
export function plural(key, count, params = {}) {
  const one = language === 'fr' ? Math.abs(count) < 2 : count === 1;
  return t(`${key}.${one ? 'one' : 'other'}`, {count, ...params});
}

// bot.i18n.a_card: "a 9", "an 8", "an 11" in English; "un 9" in French.
export function aCard(value) {
  const digits = String(value);
  const lead = digits.slice(0, digits.length % 3 || 3);
  const an = value >= 0 && (lead.startsWith('8') || lead === '11' || lead === '18');
  return t(an ? 'card.an' : 'card.a', {value});
}
