// Small valid files of every type the drawer takes, made in the test (no binary fixtures in the tree).

const fromBase64 = (b64: string) => new Uint8Array(Buffer.from(b64, "base64"));

/** A 1×1 PNG. */
export const PNG = fromBase64(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
);
/** A 1×1 GIF. */
export const GIF = fromBase64("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7");
/** A 1×1 lossy WebP. */
export const WEBP = fromBase64("UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA");
/** The start of a JPEG (SOI and a JFIF APP0 segment): enough to be recognised as one. */
export const JPEG = new Uint8Array([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01,
  0x00, 0x00, 0xff, 0xd9,
]);

/**
 * A one-page PDF whose page shows `lines` (one text line each) in Helvetica, with a correct cross-reference table:
 * a real PDF any reader opens.
 */
export function tinyPdf(...lines: string[]): Uint8Array {
  const pdfString = (t: string) => t.replace(/\\/g, "\\\\").replace(/\(/g, "\\(").replace(/\)/g, "\\)");
  const stream = lines.map((l, i) => `BT /F1 12 Tf 72 ${720 - i * 16} Td (${pdfString(l)}) Tj ET`).join("\n");
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/** Starts like a PDF and is not one. */
export const CORRUPT_PDF = new TextEncoder().encode("%PDF-1.7\nthis is not really a PDF at all\n%%EOF\n");

export const text = (s: string) => new TextEncoder().encode(s);

/** `bytes` padded with zeros to `size` (keeps the magic bytes: an image of any size). */
export function padded(bytes: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(size);
  out.set(bytes.subarray(0, size));
  return out;
}

/** A POST /api/agent/files request carrying one file in the `file` field (or in `field`). */
export function uploadRequest(bytes: Uint8Array, name: string, type = "", field = "file"): Request {
  const form = new FormData();
  form.append(field, new File([bytes as Uint8Array<ArrayBuffer>], name, { type }));
  return new Request("http://app/api/agent/files", { method: "POST", body: form });
}
