import { describe, expect, it } from "vitest";
import { UnsupportedPatternError } from "@/lib/core/text/linear-regex";
import { findSecrets, maskText } from "@/lib/core/text/mask";
import { compileCheck, NotATextCheckError } from "@/lib/guardrails/checks";

// Fake secrets are assembled at run time so secret scanners do not flag this file on push.
const awsKey = `AKIA${"IOSFODNN7EXAMPLE"}`;
const tollgateKey = `tg_${"A1b2".repeat(8)}`;

const spans = (text: string, hits: { start: number; end: number; entity: string }[]) =>
  hits.map((hit) => [hit.entity, text.slice(hit.start, hit.end)]);

describe("secrets check", () => {
  const secrets = compileCheck({ type: "secrets" });

  it("reports the secret part of each match, not its context", () => {
    const text = `😀 key ${awsKey} url https://u:${"pw123"}@host/x password=${"hunter2"} ${tollgateKey}`;
    expect(spans(text, secrets(text, "user"))).toEqual([
      ["aws_key", awsKey],
      ["password", "pw123"],
      ["keyed_assignment", "hunter2"],
      ["tollgate_key", tollgateKey],
    ]);
  });

  it("findSecrets finds exactly what maskText hides", () => {
    const text = `token=${awsKey} and Bearer ${"abc123def456ghi789"} and {"password": "${"s3cret"}"}`;
    let rebuilt = text;
    for (const secret of findSecrets(text).reverse()) {
      rebuilt = `${rebuilt.slice(0, secret.start)}#${rebuilt.slice(secret.end)}`;
    }
    expect(rebuilt).toBe(`token=# and Bearer # and {"password": "#"}`);
    expect(maskText(text)).toBe(
      `token=[masked:aws_key] and Bearer [masked:bearer] and {"password": "[masked]"}`,
    );
  });

  it("leaves card numbers to the pii check", () => {
    expect(secrets("card 4111 1111 1111 1111", "user")).toEqual([]);
    expect(findSecrets("card 4111 1111 1111 1111").map((secret) => secret.kind)).toEqual(["card"]);
  });

  it("prose that looks like a scheme or a prefix is not a secret", () => {
    for (const text of [
      "Bearer in mind the deadline",
      "the basic idea",
      "use sk-some-long-hyphenated-slug-name",
    ]) {
      expect(secrets(text, "user"), text).toEqual([]);
    }
  });
});

describe("deny_list check", () => {
  const denyList = compileCheck({
    type: "deny_list",
    terms: ["Project Falcon", "falcon", "机密", "Straße"],
    label: "codename",
  });

  it("matches whole words case-insensitively, the longest term first, in any script", () => {
    const text = "😀 the PROJECT falcon plan; falconry; 这是机密文件; STRASSE, straße.";
    expect(spans(text, denyList(text, "user"))).toEqual([
      ["codename", "PROJECT falcon"],
      ["codename", "机密"],
      ["codename", "straße"],
    ]);
  });

  it("a term is found however many terms there are", () => {
    const terms = Array.from({ length: 5_000 }, (_, i) => `term number ${i}`);
    const check = compileCheck({ type: "deny_list", terms });
    expect(spans("we said Term Number 4999 twice", check("we said Term Number 4999 twice", "user"))).toEqual([
      ["deny_list", "Term Number 4999"],
    ]);
  });
});

describe("regex check", () => {
  it("reports every non-empty match with UTF-16 offsets", () => {
    const check = compileCheck({ type: "regex", pattern: "EMP-\\d{6}", label: "employee_id" });
    const text = "😀 EMP-123456 and EMP-654321";
    expect(spans(text, check(text, "user"))).toEqual([
      ["employee_id", "EMP-123456"],
      ["employee_id", "EMP-654321"],
    ]);
  });

  it("a pattern RE2 cannot run is refused when compiled", () => {
    expect(() => compileCheck({ type: "regex", pattern: "(a)\\1" })).toThrow(UnsupportedPatternError);
  });

  it("flags apply: i makes it case-insensitive", () => {
    const check = compileCheck({ type: "regex", pattern: "secret project", flags: "i" });
    expect(check("The SECRET Project", "user")).toHaveLength(1);
  });
});

describe("compileCheck", () => {
  it.each([
    { type: "model", alias: "judge" },
    { type: "webhook", url: "https://example.com" },
    { type: "json_schema", schema: {} },
  ] as const)("$type is not a text check", (check) => {
    expect(() => compileCheck(check)).toThrow(NotATextCheckError);
  });
});
