// The viewer's cards: a record's card text read into codes (suit * 13 + rank; 52 LJ, 53 BJ),
// hands arranged and taken from, and cards drawn as the page's elements.

const SUITS = ["♠", "♥", "♣", "♦"];
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const SMALL_JOKER = 52;
const BIG_JOKER = 53;

// -- cards ------------------------------------------------------------------------------

/** Card codes (suit * 13 + rank; 52 LJ, 53 BJ) of a record's card text: "♠AK ♥5 LJ BJ". */
function parseCards(text) {
  const cards = [];
  for (const token of (text || "").split(/[\s,]+/)) {
    if (!token) continue;
    if (token === "LJ") { cards.push(SMALL_JOKER); continue; }
    if (token === "BJ") { cards.push(BIG_JOKER); continue; }
    const suit = SUITS.indexOf(token[0]);
    if (suit < 0) throw new Error("not a card: " + token);
    for (let i = 1; i < token.length; ) {
      const width = token.startsWith("10", i) ? 2 : 1;
      const rank = RANKS.indexOf(token.slice(i, i + width));
      if (rank < 0) throw new Error("not a card: " + token);
      cards.push(suit * 13 + rank);
      i += width;
    }
  }
  return cards;
}

const isJoker = (card) => card >= SMALL_JOKER;
const suitOf = (card) => (isJoker(card) ? null : Math.floor(card / 13));
const rankOf = (card) => (isJoker(card) ? null : card % 13);
const cardName = (card) =>
  card === BIG_JOKER ? "BJ" : card === SMALL_JOKER ? "LJ" : SUITS[suitOf(card)] + RANKS[rankOf(card)];

/** A hand as the engine arranges it: by code (suits ♠ ♥ ♣ ♦, low to high, the jokers last)
 * until trump is fixed, then by ``position`` (the page's arrangement of this hand's trump:
 * each card's place, side suits low to high, then the trumps, the strongest last). */
function sortHand(cards, position) {
  const key = position ? (c) => position[c] : (c) => c;
  return cards.slice().sort((a, b) => key(a) - key(b));
}

/** Take ``cards`` out of ``hand`` (a multiset: each copy once). */
function removeCards(hand, cards) {
  const left = hand.slice();
  for (const card of cards) {
    const at = left.indexOf(card);
    if (at >= 0) left.splice(at, 1);
  }
  return left;
}

const rankIndex = (text) => (text === null || text === undefined ? null : RANKS.indexOf(text));
const suitIndex = (text) => (text === null || text === undefined ? null : SUITS.indexOf(text));

// -- drawing -----------------------------------------------------------------------------

const $ = (id) => document.getElementById(id);
const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

/** A card; ``trumps`` (a set of codes, or null before the trump is fixed) marks a trump. */
function cardNode(card, trumps) {
  const node = el("span", "card");
  node.dataset.card = String(card);
  node.title = cardName(card);
  if (trumps && trumps.has(card)) {
    node.classList.add("trump");
    node.title += " (trump)";
  }
  if (isJoker(card)) {
    node.classList.add("joker", card === BIG_JOKER ? "red" : "black");
    node.append(el("span", "rank", card === BIG_JOKER ? "BJ" : "LJ"), el("span", "suit", "★"));
  } else {
    node.classList.add(suitOf(card) % 2 === 1 ? "red" : "black");
    node.append(el("span", "rank", RANKS[rankOf(card)]), el("span", "suit", SUITS[suitOf(card)]));
  }
  return node;
}

function cardsNode(cards, className, trumps) {
  const node = el("div", "cards " + (className || ""));
  for (const card of cards) node.append(cardNode(card, trumps));
  return node;
}

function backsNode(count) {
  const node = el("div", "cards hidden");
  for (let i = 0; i < count; i++) node.append(el("span", "card back"));
  return node;
}
