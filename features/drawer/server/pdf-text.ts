import "server-only";
import { cleanText } from "@/lib/core/text/clean-text";

/** A PDF whose text cannot be read; the message says why, for the uploader. */
export class PdfUnreadable extends Error {}

/** Pages read of a long PDF: the rest is not read (the model gets a few thousand characters of it anyway). */
export const PDF_MAX_PAGES = 1_000;

/**
 * The text of a PDF, page by page with line breaks kept (unpdf: PDF.js built for servers, no worker, no canvas).
 * Throws PdfUnreadable for a PDF that is corrupt, password-protected, or has no text at all (scanned pages).
 */
export async function pdfText(bytes: Uint8Array): Promise<{ text: string; pages: number }> {
  const { getResolvedPDFJS } = await import("unpdf");
  const { getDocument } = await getResolvedPDFJS();
  // A copy: PDF.js may take over (detach) the buffer it is given. Errors only, no warnings on the console; no
  // fonts loaded for display (text extraction needs none).
  const task = getDocument({
    data: new Uint8Array(bytes),
    verbosity: 0,
    disableFontFace: true,
    useSystemFonts: false,
  });
  try {
    const pdf = await task.promise;
    const pages: string[] = [];
    for (let n = 1; n <= Math.min(pdf.numPages, PDF_MAX_PAGES); n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      pages.push(
        content.items.map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : "")).join(""),
      );
      page.cleanup();
    }
    // Whitespace runs collapsed, line structure kept, at most one blank line in a row (as unpdf's mergePages).
    const text = cleanText(
      pages
        .join("\n")
        .replace(/[^\S\n]+/g, " ")
        .replace(/ ?\n ?/g, "\n")
        .replace(/\n{3,}/g, "\n\n")
        .trim(),
    );
    if (!text)
      throw new PdfUnreadable("it has no text to read (scanned pages are images, which are not read)");
    return { text, pages: pdf.numPages };
  } catch (error) {
    if (error instanceof PdfUnreadable) throw error;
    // PDF.js names its exceptions in a `name` field it sets itself (not a class name a bundler could change).
    const name = (error as { name?: unknown })?.name;
    if (name === "PasswordException") throw new PdfUnreadable("it is password-protected");
    const detail = error instanceof Error && error.message ? error.message : String(error);
    throw new PdfUnreadable(detail.slice(0, 200));
  } finally {
    await task.destroy().catch(() => {});
  }
}
