import { createElement, Fragment, type ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { SelectField, TextAreaField, TextField } from "@/components/admin-kit/form";
import { InlineConfirm } from "@/components/admin-kit/inline-confirm";
import { ModelAliasSelect } from "@/components/admin-kit/model-select";
import { I18nProvider } from "@/components/i18n";
import { domainMessages } from "@/features/tenants/components/domains-field";

const html = (element: ReactElement) =>
  // biome-ignore lint/correctness/noChildrenProp: createElement's types want required children among the props
  renderToStaticMarkup(createElement(I18nProvider, { locale: "en", children: element }));
const noop = () => {};
/** The value of one attribute of the first element carrying `data-testid="<testId>"`. */
const attr = (markup: string, testId: string, name: string) =>
  new RegExp(`<[^>]*data-testid="${testId}"[^>]*>`)
    .exec(markup)?.[0]
    .match(new RegExp(` ${name}="([^"]*)"`))?.[1];

describe("the labelled fields", () => {
  it("tie the label to the control, and name the hint then the error in aria-describedby", () => {
    const markup = html(
      createElement(TextField, {
        id: "f",
        name: "email",
        label: "Email",
        value: "",
        onChange: noop,
        hint: "Work address",
        messages: ["taken", "too long"],
      }),
    );
    expect(markup).toContain('<label for="f-email"');
    expect(attr(markup, "field-email", "id")).toBe("f-email");
    expect(attr(markup, "field-email", "aria-invalid")).toBe("true");
    expect(attr(markup, "field-email", "aria-describedby")).toBe("f-email-hint f-email-error");
    expect(markup).toContain('<p id="f-email-hint"');
    expect(markup).toMatch(/<p id="f-email-error" data-testid="field-error-email"[^>]*>taken too long<\/p>/);
  });

  it("say nothing invalid and describe nothing when there is no hint and no message", () => {
    const markup = html(
      createElement(TextField, { id: "f", name: "n", label: "N", value: "", onChange: noop, messages: [] }),
    );
    expect(attr(markup, "field-n", "aria-invalid")).toBeUndefined();
    expect(attr(markup, "field-n", "aria-describedby")).toBeUndefined();
    expect(markup).not.toContain("field-error-n");
  });

  it("take the caller's test id and list messages one per line when asked", () => {
    const markup = html(
      createElement(TextAreaField, {
        id: "f",
        name: "domains",
        testId: "domains-box",
        label: "Domains",
        rows: 3,
        value: "a.test",
        onChange: noop,
        listMessages: true,
        messages: ["a.test: taken", "b: not a domain"],
      }),
    );
    expect(attr(markup, "domains-box", "id")).toBe("f-domains");
    expect(markup).toContain("<li>a.test: taken</li><li>b: not a domain</li>");
    expect(markup).toContain('<ul id="f-domains-error" data-testid="field-error-domains"');
  });

  it("render a select with the caller's options", () => {
    const markup = html(
      createElement(SelectField, {
        id: "f",
        name: "role",
        label: "Role",
        value: "admin",
        onChange: noop,
        // biome-ignore lint/correctness/noChildrenProp: createElement's types want required children among the props
        children: createElement(
          Fragment,
          null,
          createElement("option", { value: "member" }, "Member"),
          createElement("option", { value: "admin" }, "Admin"),
        ),
      }),
    );
    expect(markup).toContain('<label for="f-role"');
    expect(markup).toMatch(/<select id="f-role" name="role" data-testid="field-role"/);
    expect(markup).toContain('<option value="admin" selected="">Admin</option>');
  });
});

describe("ModelAliasSelect", () => {
  const models = [
    { alias: "gpt-fake", offline: false },
    { alias: "offline-demo", offline: true },
  ];

  it("lists the aliases after an optional empty option", () => {
    const markup = html(
      createElement(ModelAliasSelect<(typeof models)[number]>, {
        models,
        value: "",
        onChange: noop,
        emptyLabel: "—",
      }),
    );
    expect(markup).toMatch(
      /<option value="" selected="">—<\/option><option value="gpt-fake">gpt-fake<\/option><option value="offline-demo">offline-demo<\/option><\/select>/,
    );
  });

  it("keeps an alias the gateway no longer lists only when asked, and reads aliases as told", () => {
    const props = {
      models,
      value: "retired",
      onChange: noop,
      optionLabel: (m: (typeof models)[number]) => (m.offline ? `${m.alias} (demo)` : m.alias),
    };
    expect(html(createElement(ModelAliasSelect<(typeof models)[number]>, props))).not.toContain("retired<");
    const kept = html(
      createElement(ModelAliasSelect<(typeof models)[number]>, { ...props, keepUnlisted: true }),
    );
    expect(kept).toContain('<option value="retired" selected="">retired</option>');
    expect(kept).toContain(">offline-demo (demo)</option>");
  });
});

describe("InlineConfirm", () => {
  const props = {
    onAsk: noop,
    onCancel: noop,
    onConfirm: noop,
    action: { label: "Revoke", ariaLabel: "Revoke k1", testId: "revoke" },
    confirm: { label: "Revoke now", ariaLabel: "Revoke k1 now", testId: "revoke-confirm" },
    cancelTestId: "revoke-cancel",
    warning: "Calls with it fail at once.",
  };

  it("shows the row's other actions and the red action until asked", () => {
    const markup = html(
      createElement(
        InlineConfirm,
        { ...props, asking: false },
        createElement("button", { type: "button" }, "Edit"),
      ),
    );
    expect(markup).toContain(">Edit</button>");
    expect(attr(markup, "revoke", "aria-label")).toBe("Revoke k1");
    expect(markup).not.toContain("revoke-confirm");
    expect(markup).not.toContain(props.warning);
  });

  it("turns into the warning, Confirm (disabled while busy) and Cancel once asked", () => {
    const markup = html(
      createElement(
        InlineConfirm,
        { ...props, asking: true, busy: true },
        createElement("button", { type: "button" }, "Edit"),
      ),
    );
    expect(markup).not.toContain(">Edit</button>");
    expect(markup).not.toContain('data-testid="revoke"');
    expect(markup).toContain(props.warning);
    expect(attr(markup, "revoke-confirm", "aria-label")).toBe("Revoke k1 now");
    expect(attr(markup, "revoke-confirm", "disabled")).toBe("");
    expect(markup).toMatch(/data-testid="revoke-cancel"[^>]*>Cancel<\/button>/);
  });
});

describe("the domains field's messages", () => {
  it("names the domain an entry's message is about, and keeps any other message as it is", () => {
    const domains = ["corp.com", "bad..example"];
    expect(
      domainMessages(
        {
          "domains.1": ["not a domain name"],
          domains: ["at most 50 domains"],
          "domains.x": ["odd key"],
          "domainsX.0": ["another field"],
          "domains.7": ["no such entry"],
        },
        "domains",
        domains,
      ),
    ).toEqual([
      "bad..example: not a domain name",
      "at most 50 domains",
      "odd key",
      "another field",
      "no such entry",
    ]);
  });
});
