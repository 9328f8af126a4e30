"use client";

import type { ReactNode } from "react";
import { TextAreaField } from "@/components/admin-kit/form";

/** Domains typed one per line or separated by commas or spaces. */
export const parseDomains = (text: string) =>
  text
    .split(/[\s,;]+/)
    .map((d) => d.trim())
    .filter(Boolean);

/** The server's messages, each about an entry of the list (`<field>.2`) said with the domain it is about. */
export function domainMessages(fields: Record<string, string[]>, field: string, domains: string[]): string[] {
  const prefix = `${field}.`;
  return Object.entries(fields).flatMap(([key, messages]) => {
    const index = key.startsWith(prefix) ? key.slice(prefix.length) : "";
    const domain = /^\d+$/.test(index) ? domains[Number(index)] : undefined;
    return messages.map((m) => (domain ? `${domain}: ${m}` : m));
  });
}

/** A list of domains, one per line, with its hint and one line per message under it. */
export function DomainsField(props: {
  id: string;
  /** The field's name: its test ids are `field-<name>` and `field-error-<name>`. */
  name: string;
  label: string;
  hint: ReactNode;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
  messages: string[];
}) {
  return (
    <TextAreaField
      id={props.id}
      name={props.name}
      label={props.label}
      hint={props.hint}
      rows={3}
      placeholder={props.placeholder}
      value={props.value}
      onChange={props.onChange}
      messages={props.messages}
      listMessages
      controlClassName="font-mono"
    />
  );
}
