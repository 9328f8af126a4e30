// An upload's fields read by busboy: a field named __proto__ is a field, never the fields object's prototype.
import { describe, expect, it } from "vitest";
import { OPENAI } from "@/features/v1/server/dialects";
import { readUpload } from "@/features/v1/server/multipart";

const boundary = "----tollgate";
const form = (parts: string[]) =>
  new TextEncoder().encode(`${parts.map((p) => `--${boundary}\r\n${p}\r\n`).join("")}--${boundary}--\r\n`);

describe("readUpload", () => {
  it("keeps a field named __proto__ as a field, without touching the object's prototype", async () => {
    const body = form([
      'Content-Disposition: form-data; name="model"\r\n\r\nwhisper',
      'Content-Disposition: form-data; name="__proto__"\r\n\r\npolluted',
      'Content-Disposition: form-data; name="file"; filename="a.mp3"\r\nContent-Type: audio/mpeg\r\n\r\nID3',
    ]);
    const read = await readUpload(
      {
        method: "POST",
        path: "/v1/audio/transcriptions",
        headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
        body,
        signal: new AbortController().signal,
      },
      "openai-transcriptions",
      OPENAI,
    );
    if (read.refused) throw new Error("refused");
    expect(Object.getPrototypeOf(read.upload.body)).toBeNull();
    expect(Object.hasOwn(read.upload.body, "__proto__")).toBe(true);
    expect(read.upload.body.model).toBe("whisper");
    expect(read.upload.parts.map((p) => p.name)).toEqual(["model", "__proto__", "file"]);
  });
});
