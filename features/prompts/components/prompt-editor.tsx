"use client";

import { type FormEvent, useId, useMemo, useState } from "react";
import { Field, TextAreaField, TextField } from "@/components/admin-kit/form";
import { ModelAliasSelect } from "@/components/admin-kit/model-select";
import { BUTTON, ErrorNote, FieldError, INPUT, LABEL, messagesOf, PRIMARY } from "@/components/admin-kit/ui";
import { explainWithFields, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useI18n } from "@/components/i18n";
import { type PromptRightsView, promptsApi } from "@/features/prompts/client";
import type { PromptConfigView, PromptMessageView } from "@/features/prompts/contracts";
import { PROTECTED_LABEL, variablesOf } from "@/features/prompts/server/template";
import type { ModelInfo } from "@/lib/gateway/types";
import { VariableList } from "./prompt-content";
import { INPUT_FIXED } from "./styles";

type Role = PromptMessageView["role"];
const ROLES: Role[] = ["system", "user", "assistant"];
const SHOWN = ["name", "type", "messages", "text", "config", "labels", "message"] as const;

export type EditorStart = {
  type: "chat" | "text";
  messages: PromptMessageView[];
  text: string;
  config: PromptConfigView;
};

/** Optional number fields: "" is unset, anything else is sent as typed (the server names a bad one). */
const numberOrUndefined = (value: string) => (value.trim() === "" ? undefined : Number(value));

/**
 * Saves a new prompt (`name` free) or the next version of one (`name` given: its type is fixed): messages by role
 * (added, removed, reordered) or text, the config, labels to point at the new version and a commit message. The
 * variables the template uses are detected as it is typed.
 */
export function PromptEditor(props: {
  name?: string;
  start: EditorStart;
  models: ModelInfo[];
  rights: PromptRightsView;
  onSaved: (saved: { name: string; version: number }) => void;
  onCancel?: () => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const fixedName = props.name;
  const [name, setName] = useState("");
  const [type, setType] = useState(props.start.type);
  const [messages, setMessages] = useState<PromptMessageView[]>(
    props.start.messages.length ? props.start.messages : [{ role: "system", content: "" }],
  );
  const [text, setText] = useState(props.start.text);
  const [model, setModel] = useState(props.start.config.model ?? "");
  const [temperature, setTemperature] = useState(props.start.config.temperature?.toString() ?? "");
  const [maxTokens, setMaxTokens] = useState(props.start.config.maxTokens?.toString() ?? "");
  const [toolSets, setToolSets] = useState(props.start.config.toolSets?.join(", ") ?? "");
  const [labels, setLabels] = useState<string[]>([]);
  const [customLabels, setCustomLabels] = useState("");
  const [commit, setCommit] = useState("");
  const form = useFormSubmit(explainWithFields(SHOWN));

  const variables = useMemo(
    () => variablesOf(type === "chat" ? { type, messages } : { type, text }),
    [type, messages, text],
  );

  const setMessage = (index: number, change: Partial<PromptMessageView>) =>
    setMessages((all) => all.map((m, i) => (i === index ? { ...m, ...change } : m)));
  const move = (index: number, by: -1 | 1) =>
    setMessages((all) => {
      const next = [...all];
      const [m] = next.splice(index, 1);
      next.splice(index + by, 0, m!);
      return next;
    });
  const toggleLabel = (label: string) =>
    setLabels((all) => (all.includes(label) ? all.filter((l) => l !== label) : [...all, label]));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    form.reset();
    const config: PromptConfigView = {
      ...(model ? { model } : {}),
      ...(numberOrUndefined(temperature) !== undefined
        ? { temperature: numberOrUndefined(temperature) }
        : {}),
      ...(numberOrUndefined(maxTokens) !== undefined ? { maxTokens: numberOrUndefined(maxTokens) } : {}),
      ...(toolSets.trim()
        ? {
            toolSets: toolSets
              .split(",")
              .map((s) => s.trim())
              .filter(Boolean),
          }
        : {}),
    };
    const allLabels = [
      ...labels,
      ...customLabels
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ];
    const common = {
      name: fixedName ?? name,
      config,
      ...(allLabels.length ? { labels: allLabels } : {}),
      ...(commit.trim() ? { message: commit.trim() } : {}),
    };
    void form.submit(async () => {
      const saved = await promptsApi.save(
        type === "chat" ? { ...common, type, messages } : { ...common, type, text },
      );
      props.onSaved(saved);
    });
  };

  const field = (key: string) => messagesOf(form.fields, key);
  const errorOf = (key: string) => (
    <FieldError id={`${id}-${key.replaceAll(".", "-")}-error`} field={key} messages={form.fields[key]} />
  );

  return (
    <form noValidate onSubmit={submit} data-testid="prompt-editor" className="space-y-4">
      {fixedName === undefined && (
        <div className="grid gap-3 sm:grid-cols-[1fr_auto]">
          <TextField
            id={id}
            name="name"
            testId="prompt-name"
            label={t("prompts.editor.name")}
            value={name}
            placeholder="support/triage"
            hint={t("prompts.editor.nameHint")}
            messages={field("name")}
            onChange={setName}
          />
          <fieldset>
            <legend className={LABEL}>{t("prompts.editor.type")}</legend>
            <div className="mt-2 flex gap-3 text-sm">
              {(["chat", "text"] as const).map((value) => (
                <label key={value} className="inline-flex items-center gap-1.5">
                  <input
                    type="radio"
                    name={`${id}-type`}
                    data-testid={`prompt-type-${value}`}
                    checked={type === value}
                    onChange={() => setType(value)}
                  />
                  {t(value === "chat" ? "prompts.type.chat" : "prompts.type.text")}
                </label>
              ))}
            </div>
          </fieldset>
        </div>
      )}

      {type === "chat" ? (
        <fieldset className="space-y-2">
          <legend className={LABEL}>{t("prompts.editor.messages")}</legend>
          {messages.map((m, i) => (
            <div
              // biome-ignore lint/suspicious/noArrayIndexKey: messages are edited in place; their order is the key
              key={i}
              data-testid="editor-message"
              className="space-y-1.5 rounded-md border border-slate-200 p-2 dark:border-slate-800"
            >
              <div className="flex flex-wrap items-center gap-1.5">
                <select
                  aria-label={t("prompts.editor.role")}
                  data-testid="editor-role"
                  value={m.role}
                  onChange={(e) => setMessage(i, { role: e.target.value as Role })}
                  className={`${INPUT_FIXED} w-32`}
                >
                  {ROLES.map((r) => (
                    <option key={r} value={r}>
                      {t(`prompts.role.${r}`)}
                    </option>
                  ))}
                </select>
                <span className="ml-auto flex gap-1">
                  <button
                    type="button"
                    className={BUTTON}
                    disabled={i === 0}
                    aria-label={t("prompts.editor.up")}
                    onClick={() => move(i, -1)}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    className={BUTTON}
                    disabled={i === messages.length - 1}
                    aria-label={t("prompts.editor.down")}
                    onClick={() => move(i, 1)}
                  >
                    ↓
                  </button>
                  <button
                    type="button"
                    data-testid="editor-remove"
                    className={BUTTON}
                    disabled={messages.length === 1}
                    onClick={() => setMessages((all) => all.filter((_, k) => k !== i))}
                  >
                    {t("prompts.editor.remove")}
                  </button>
                </span>
              </div>
              <textarea
                aria-label={t("prompts.editor.content", { role: t(`prompts.role.${m.role}`) })}
                data-testid="editor-content"
                value={m.content}
                rows={Math.min(12, Math.max(3, m.content.split("\n").length + 1))}
                aria-invalid={field(`messages.${i}`).length > 0 || undefined}
                onChange={(e) => setMessage(i, { content: e.target.value })}
                className={`${INPUT} font-mono text-xs`}
              />
              {errorOf(`messages.${i}.content`)}
            </div>
          ))}
          <button
            type="button"
            data-testid="editor-add-message"
            className={BUTTON}
            onClick={() => setMessages((all) => [...all, { role: "user", content: "" }])}
          >
            {t("prompts.editor.addMessage")}
          </button>
          {errorOf("messages")}
        </fieldset>
      ) : (
        <TextAreaField
          id={id}
          name="text"
          testId="editor-text"
          label={t("prompts.editor.text")}
          rows={8}
          value={text}
          messages={field("text")}
          onChange={setText}
          controlClassName="font-mono text-xs"
        />
      )}

      <VariableList variables={variables} />

      <fieldset className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <legend className={`${LABEL} mb-1`}>{t("prompts.editor.config")}</legend>
        <Field
          controlId={`${id}-model`}
          field="config.model"
          label={t("prompts.config.model")}
          messages={field("config.model")}
        >
          {(wiring) => (
            <ModelAliasSelect
              {...wiring}
              data-testid="editor-model"
              models={props.models}
              emptyLabel={t("prompts.config.default")}
              keepUnlisted
              value={model}
              onChange={setModel}
              className={`mt-1 ${INPUT}`}
            />
          )}
        </Field>
        <TextField
          id={id}
          name="config.temperature"
          testId="editor-temperature"
          label={t("prompts.config.temperature")}
          type="number"
          step="0.1"
          min={0}
          max={2}
          value={temperature}
          messages={field("config.temperature")}
          onChange={setTemperature}
        />
        <TextField
          id={id}
          name="config.maxTokens"
          testId="editor-max-tokens"
          label={t("prompts.config.maxTokens")}
          type="number"
          min={1}
          value={maxTokens}
          messages={field("config.maxTokens")}
          onChange={setMaxTokens}
        />
        <TextField
          id={id}
          name="config.toolSets"
          testId="editor-tool-sets"
          label={t("prompts.config.toolSets")}
          value={toolSets}
          placeholder="todo, web"
          messages={field("config.toolSets")}
          onChange={setToolSets}
        />
      </fieldset>

      <fieldset>
        <legend className={LABEL}>{t("prompts.editor.labels")}</legend>
        <div className="mt-1 flex flex-wrap items-center gap-3 text-sm">
          {[PROTECTED_LABEL, "staging"].map((label) => {
            const locked = label === PROTECTED_LABEL && !props.rights.admin;
            return (
              <label
                key={label}
                title={locked ? t("prompts.labels.productionAdminsOnly") : undefined}
                className={`inline-flex items-center gap-1.5 ${locked ? "text-slate-400" : ""}`}
              >
                <input
                  type="checkbox"
                  data-testid={`editor-label-${label}`}
                  disabled={locked}
                  checked={labels.includes(label)}
                  onChange={() => toggleLabel(label)}
                />
                {label}
              </label>
            );
          })}
          <input
            aria-label={t("prompts.editor.customLabels")}
            data-testid="editor-custom-labels"
            value={customLabels}
            placeholder={t("prompts.editor.customLabels")}
            autoComplete="off"
            onChange={(e) => setCustomLabels(e.target.value)}
            className={`${INPUT_FIXED} w-48`}
          />
        </div>
        <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">{t("prompts.editor.labelsHint")}</p>
        <FieldError id={`${id}-labels-error`} field="labels" messages={field("labels")} />
      </fieldset>

      <TextField
        id={id}
        name="message"
        testId="editor-commit"
        label={t("prompts.editor.commit")}
        value={commit}
        placeholder={t("prompts.editor.commitPlaceholder")}
        messages={field("message")}
        onChange={setCommit}
      />

      {form.formError && <ErrorNote testId="editor-error" message={form.formError} />}
      <div className="flex gap-2">
        <button type="submit" data-testid="editor-save" disabled={form.saving} className={PRIMARY}>
          {form.saving
            ? t("prompts.editor.saving")
            : fixedName === undefined
              ? t("prompts.editor.create")
              : t("prompts.editor.saveVersion")}
        </button>
        {props.onCancel && (
          <button type="button" className={BUTTON} onClick={props.onCancel}>
            {t("prompts.cancel")}
          </button>
        )}
      </div>
    </form>
  );
}
