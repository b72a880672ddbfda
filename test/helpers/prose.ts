/**
 * The sentences of a Markdown page's prose, as the documentation tests count them (issue 27: short
 * sentences). Code blocks (indented in a list item too), tables and headings are not prose; a list item is
 * a paragraph of its own.
 */

/** The prose paragraphs of a Markdown text: code blocks, tables and headings left out, a list item its own paragraph. */
export function proseParagraphs(markdown: string): string[] {
  const paragraphs: string[] = [];
  let current: string[] = [];
  const close = (): void => {
    if (current.length > 0) paragraphs.push(current.join(" "));
    current = [];
  };
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.trimStart().startsWith("```")) {
      fenced = !fenced;
      close();
      continue;
    }
    if (fenced || line.startsWith("|") || line.startsWith("#") || line.trim() === "") {
      close();
      continue;
    }
    if (/^\s*([-*]|\d+\.)\s/.test(line)) close();
    current.push(line.trim());
  }
  close();
  return paragraphs;
}

/** The sentences of a paragraph: split after `.`, `!` or `?` and a space (so `.ocf.zip` and `e.g.x` stay whole). */
export function sentences(paragraph: string): string[] {
  return paragraph.split(/(?<=[.!?])\s+/).filter((s) => s.trim() !== "");
}

/** The words of a sentence: its space-separated pieces that hold a letter or a digit. */
export const words = (sentence: string): number => sentence.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;

/** The sentences of a Markdown text's prose. */
export const proseSentences = (markdown: string): string[] => proseParagraphs(markdown).flatMap(sentences);

/** The sentences of a Markdown text's prose that run over `limit` words (issue 27's bar is 40). */
export const longSentences = (markdown: string, limit = 40): string[] => proseSentences(markdown).filter((s) => words(s) > limit);
