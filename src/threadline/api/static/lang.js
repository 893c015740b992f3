// A small language guess (French or English) for the follow-ups the page writes itself.

const FRENCH = new Set(
  (
    "le la les des du un une et est sont été être pour avec dans sur par pas que qui quoi " +
    "quel quelle quels quelles ce cet cette ces mon ma mes ton ta tes son sa ses nos vos leur " +
    "leurs nous vous ils elles au aux en où comment pourquoi combien je tu il elle on ne plus " +
    "très aussi mais ou donc car se sa résume résumé détaille détailler précise explique " +
    "donne dis peux pouvez merci bonjour salut rapport annuel chiffre affaires selon entre " +
    "avoir fait faire sont ont été"
  ).split(" "),
);

const ENGLISH = new Set(
  (
    "the an and is are was were be for with in on by not that which what who whom this " +
    "these those my your our their its to of how why when where tell me more about expand " +
    "summarize summarise explain give can could would should do does did thanks thank hello " +
    "hi please it they he she we you i have has had from at as or but if than then there " +
    "one any some show list"
  ).split(" "),
);

const FRENCH_LETTERS = /[àâçéèêëîïôûùüÿœæ]/gi;

/** Scores of a text: {fr, en}. */
function scores(text) {
  const lower = (text || "").toLowerCase();
  let fr = (lower.match(FRENCH_LETTERS) || []).length * 0.5;
  let en = 0;
  for (const word of lower.split(/[^\p{L}']+/u)) {
    // Elisions: "l'exercice", "d'affaires", "qu'est".
    const bare = word.replace(/^(?:[ldjmnstc]|qu|jusqu|lorsqu|puisqu)'/, "");
    if (bare !== word) fr += 1;
    if (FRENCH.has(bare)) fr += 1;
    if (ENGLISH.has(bare)) en += 1;
  }
  return { fr, en };
}

/** "fr", "en", or null when the text says too little to tell. */
export function detectLanguage(text) {
  const { fr, en } = scores(text);
  if (fr === en) return null;
  return fr > en ? "fr" : "en";
}

/** The conversation's language: the person's message first, then the answer, then the browser. */
export function conversationLanguage(...texts) {
  for (const text of texts) {
    const lang = detectLanguage(text);
    if (lang) return lang;
  }
  return (navigator.language || "en").toLowerCase().startsWith("fr") ? "fr" : "en";
}

/** The follow-up a chip sends for an outline section. */
export function expandPrompt(sectionId, lang) {
  return lang === "fr" ? `Détaille ${sectionId}` : `Expand ${sectionId}`;
}
