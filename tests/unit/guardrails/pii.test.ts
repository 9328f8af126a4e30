import { describe, expect, it } from "vitest";
import { compileCheck } from "@/lib/guardrails/checks";
import {
  passesCodiceFiscale,
  passesCpf,
  passesIbanMod97,
  passesLuhn,
  passesSpanishId,
  passesVerhoeff,
} from "@/lib/guardrails/checks/checksums";

const pii = compileCheck({ type: "pii" });
const found = (text: string) => pii(text, "user").map((hit) => [hit.entity, text.slice(hit.start, hit.end)]);

describe("checksums", () => {
  it("accept valid numbers and refuse each with one digit changed", () => {
    const cases: [(value: string) => boolean, string, string][] = [
      [passesLuhn, "4111111111111111", "4111111111111112"],
      [passesIbanMod97, "DE89370400440532013000", "DE89370400440532013001"],
      [passesVerhoeff, "234567890124", "234567890125"],
      [passesCpf, "52998224725", "52998224726"],
      [passesSpanishId, "12345678Z", "12345678A"],
      [passesSpanishId, "X1234567L", "X1234567M"],
      [passesCodiceFiscale, "RSSMRA85T10A562S", "RSSMRA85T10A562T"],
    ];
    for (const [passes, valid, invalid] of cases) {
      expect(passes(valid), valid).toBe(true);
      expect(passes(invalid), invalid).toBe(false);
    }
  });

  it("a CPF of one repeated digit passes the sums but is refused", () => {
    expect(passesCpf("11111111111")).toBe(false);
  });
});

describe("pii check: spans", () => {
  it("reports each entity with its exact span", () => {
    const text = "Mail jane.doe@example.com, card 4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00.";
    expect(found(text)).toEqual([
      ["email", "jane.doe@example.com"],
      ["payment_card", "4111 1111 1111 1111"],
      ["iban", "DE89 3704 0044 0532 0130 00"],
    ]);
  });

  it("offsets are UTF-16 offsets into the text, after emoji and other scripts", () => {
    const text = "😀👍🏽 我的电话 +86 138 0013 8000 und jürgen@example.de";
    const hits = pii(text, "user");
    expect(hits.map((hit) => text.slice(hit.start, hit.end))).toEqual([
      "+86 138 0013 8000",
      "jürgen@example.de",
    ]);
    expect(hits[0]!.start).toBe(text.indexOf("+86"));
  });

  it("phone numbers: E.164 and the national formats of the US, UK, DE, FR and IN", () => {
    for (const phone of [
      "+4915112345678",
      "+1 (415) 555-0132",
      "(212) 555-0187",
      "020 7946 0958",
      "030 12345678",
      "01 42 68 53 00",
      "98765 43210",
    ]) {
      expect(found(`call ${phone} today`), phone).toEqual([["phone", phone]]);
    }
  });

  it("confidence is 1 for a checksum-verified number and lower for a shape alone", () => {
    const [card, phone] = pii("4111 1111 1111 1111 or 020 7946 0958", "user");
    expect(card!.confidence).toBe(1);
    expect(phone!.confidence).toBeLessThan(1);
  });

  it("a Luhn-valid number without a known card prefix is reported with lower confidence", () => {
    const [hit] = pii("number 2000 0000 0000 0006 here", "user");
    expect(hit).toMatchObject({ entity: "payment_card", confidence: 0.7 });
  });

  it("national ids: NINO, DNI, NIE, codice fiscale, Aadhaar, CPF", () => {
    const ids = [
      "AB 12 34 56 C",
      "12345678Z",
      "X1234567L",
      "RSSMRA85T10A562S",
      "2345 6789 0124",
      "529.982.247-25",
    ];
    for (const id of ids) expect(found(`id ${id}.`), id).toEqual([["national_id", id]]);
  });

  it("US SSNs with dashes, or bare nine digits after an SSN label", () => {
    expect(found("SSN 123-45-6789")).toEqual([["us_ssn", "123-45-6789"]]);
    expect(found("social security number: 234567890")).toEqual([["us_ssn", "234567890"]]);
    expect(found("reference 234567890")).toEqual([]);
  });

  it("IPv4 and IPv6 addresses, compressed or not", () => {
    expect(found("from 192.168.1.20 and 2001:db8::8a2e:370:7334 and ::1")).toEqual([
      ["ip_address", "192.168.1.20"],
      ["ip_address", "2001:db8::8a2e:370:7334"],
      ["ip_address", "::1"],
    ]);
  });

  it("entities filter: only the listed entities are reported", () => {
    const emailsOnly = compileCheck({ type: "pii", entities: ["email"] });
    const hits = emailsOnly("jane@example.com 4111 1111 1111 1111", "user");
    expect(hits.map((hit) => hit.entity)).toEqual(["email"]);
  });
});

describe("pii check: near misses are not personal data", () => {
  it.each([
    "Your order 4111 1111 1111 1112 has shipped.",
    "Order #4111111111111111",
    "Invoice INV-2024-000123",
    "Invoice no. 030 12345678",
    "Meeting on 2024-03-15 at 10:30",
    "Upgrade to version 1.2.3.4",
    "Timestamp 1700000000000",
    "ISBN 978-3-16-148410-0",
    "Request 123e4567-e89b-12d3-a456-426614174000",
    "USPS 9400 1000 0000 0000 0000 00",
    "IBAN DE89 3704 0044 0532 0130 01",
    "SSN 666-12-3456",
    "999.1.1.1",
    "MAC 00:1A:2B:3C:4D:5E at 12:30:45",
    "std::vector",
    "postgres://admin:pw@db.internal:5432/app",
    "Price 1,249.99",
  ])("%s", (text) => {
    expect(found(text)).toEqual([]);
  });
});
