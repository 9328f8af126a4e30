import Markdown from "react-markdown";
import type { OpenApiDocument, OpenApiOperation } from "../server";

// The API reference as one server-rendered page, drawn from the OpenAPI document itself (what /api/openapi.json
// serves), so the page and the document cannot disagree. No script: sections fold with <details>.

const METHOD_STYLE: Record<string, string> = {
  get: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/60 dark:text-emerald-200",
  post: "bg-sky-100 text-sky-800 dark:bg-sky-900/60 dark:text-sky-200",
  put: "bg-amber-100 text-amber-800 dark:bg-amber-900/60 dark:text-amber-200",
  patch: "bg-violet-100 text-violet-800 dark:bg-violet-900/60 dark:text-violet-200",
  delete: "bg-rose-100 text-rose-800 dark:bg-rose-900/60 dark:text-rose-200",
};
const CODE = "rounded bg-slate-100 px-1 font-mono text-[0.85em] dark:bg-slate-800";
const PRE =
  "max-h-96 overflow-auto rounded-md bg-slate-900 p-3 font-mono text-xs leading-relaxed text-slate-100 dark:bg-black/60";

type Entry = { path: string; method: string; op: OpenApiOperation };
type Media = Record<string, { schema?: unknown; example?: unknown }>;
type Parameter = {
  name: string;
  in: string;
  required: boolean;
  description?: string;
  schema: Record<string, unknown>;
};

function Text({ children }: { children: string }) {
  return (
    <div className="space-y-2 text-sm leading-relaxed text-slate-700 dark:text-slate-300 [&_code]:rounded [&_code]:bg-slate-100 [&_code]:px-1 [&_code]:font-mono [&_code]:text-[0.85em] dark:[&_code]:bg-slate-800">
      <Markdown skipHtml>{children}</Markdown>
    </div>
  );
}

/** A line with `code` spans, for the places Markdown would wrap in a paragraph (a summary). */
function Inline({ text }: { text: string }) {
  return (
    <>
      {text.split("`").map((part, i) =>
        i % 2 ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string, in order
          <code key={i} className={CODE}>
            {part}
          </code>
        ) : (
          part
        ),
      )}
    </>
  );
}

const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value, null, 2));

function typeOf(schema: Record<string, unknown>): string {
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : (schema.type as string | undefined);
  const format = schema.format ? ` (${schema.format})` : "";
  if (schema.enum) return (schema.enum as unknown[]).map((v) => JSON.stringify(v)).join(" | ");
  return `${type ?? "any"}${format}`;
}

function Parameters({ parameters }: { parameters: Parameter[] }) {
  return (
    <table className="w-full text-left text-sm">
      <thead className="text-xs text-slate-500 uppercase">
        <tr>
          <th className="py-1 pr-3 font-medium">Name</th>
          <th className="py-1 pr-3 font-medium">In</th>
          <th className="py-1 pr-3 font-medium">Type</th>
          <th className="py-1 font-medium">About</th>
        </tr>
      </thead>
      <tbody>
        {parameters.map((p) => (
          <tr key={`${p.in}:${p.name}`} className="border-t border-slate-200 align-top dark:border-slate-800">
            <td className="py-1 pr-3">
              <code className={CODE}>{p.name}</code>
              {p.required ? <span className="ml-1 text-rose-600">*</span> : null}
            </td>
            <td className="py-1 pr-3 text-slate-500">{p.in}</td>
            <td className="py-1 pr-3 font-mono text-xs">{typeOf(p.schema)}</td>
            <td className="py-1 text-slate-600 dark:text-slate-400">
              <Inline text={p.description ?? ""} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Content({ content }: { content: Media }) {
  return (
    <>
      {Object.entries(content).map(([type, media]) => {
        // A named schema is shown once, under Schemas at the end; an inline one here.
        const name = (media.schema as { $ref?: string } | undefined)?.$ref?.split("/").at(-1);
        const schema = name ? undefined : media.schema;
        return (
          <div key={type} className="space-y-2">
            <div className="text-xs text-slate-500">
              <code className={CODE}>{type}</code>
              {name ? (
                <a className="ml-2 text-indigo-600 underline dark:text-indigo-400" href={`#schema-${name}`}>
                  {name}
                </a>
              ) : null}
            </div>
            {media.example !== undefined ? <pre className={PRE}>{show(media.example)}</pre> : null}
            {schema ? (
              <details>
                <summary className="cursor-pointer text-xs text-slate-500">JSON Schema</summary>
                <pre className={PRE}>{show(schema)}</pre>
              </details>
            ) : null}
          </div>
        );
      })}
    </>
  );
}

function OperationView({ entry }: { entry: Entry }) {
  const { path, method, op } = entry;
  const parameters = (op.parameters ?? []) as Parameter[];
  const body = op.requestBody as { content: Media } | undefined;
  return (
    <section
      id={op.operationId}
      className="scroll-mt-4 space-y-3 rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900"
    >
      <h3 className="flex flex-wrap items-center gap-2">
        <span
          className={`rounded px-2 py-0.5 font-mono text-xs font-bold uppercase ${METHOD_STYLE[method] ?? ""}`}
        >
          {method}
        </span>
        <code className="font-mono text-sm break-all">{path}</code>
        <span className="text-sm text-slate-500">{op.summary}</span>
        <span className="ml-auto rounded-full border border-slate-300 px-2 py-0.5 text-xs text-slate-600 dark:border-slate-700 dark:text-slate-400">
          {op["x-tollgate-guard"]}
        </span>
      </h3>
      <Text>{op.description}</Text>
      {parameters.length ? <Parameters parameters={parameters} /> : null}
      {body ? (
        <div className="space-y-2">
          <h4 className="text-sm font-semibold">Request body</h4>
          <Content content={body.content} />
        </div>
      ) : null}
      <div className="space-y-1">
        <h4 className="text-sm font-semibold">Responses</h4>
        {Object.entries(op.responses).map(([status, response]) => {
          const content = response.content as Media | undefined;
          const ok = Number(status) < 400;
          return (
            <details
              key={status}
              open={ok}
              className="rounded border border-slate-100 p-2 dark:border-slate-800"
            >
              <summary className="cursor-pointer text-sm">
                <span
                  className={`font-mono font-semibold ${ok ? "text-emerald-700 dark:text-emerald-400" : "text-rose-700 dark:text-rose-400"}`}
                >
                  {status}
                </span>{" "}
                <Inline text={response.description as string} />
              </summary>
              {content ? (
                <div className="mt-2">
                  <Content content={content} />
                </div>
              ) : null}
            </details>
          );
        })}
      </div>
      <p className="text-xs text-slate-400">
        Served by <code className={CODE}>{op["x-tollgate-route"]}</code>
      </p>
    </section>
  );
}

export function ApiReference({ doc }: { doc: OpenApiDocument }) {
  const entries: Entry[] = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op })),
  );
  const byTag = doc.tags.map((tag) => ({
    ...tag,
    entries: entries.filter((e) => e.op.tags[0] === tag.name),
  }));
  return (
    <div className="mx-auto flex max-w-7xl gap-8 px-4 py-8">
      <nav
        aria-label="Operations"
        className="sticky top-4 hidden max-h-[calc(100vh-2rem)] w-72 shrink-0 overflow-auto text-sm lg:block"
      >
        {byTag.map((tag) => (
          <div key={tag.name} className="mb-4">
            <a href={`#tag-${slug(tag.name)}`} className="font-semibold hover:underline">
              {tag.name}
            </a>
            <ul className="mt-1 space-y-0.5">
              {tag.entries.map(({ method, path, op }) => (
                <li key={op.operationId}>
                  <a
                    href={`#${op.operationId}`}
                    className="flex gap-1 text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-slate-100"
                  >
                    <span className="w-12 shrink-0 pt-px font-mono text-[0.7rem] uppercase">{method}</span>
                    <span className="break-all">{path}</span>
                  </a>
                </li>
              ))}
            </ul>
          </div>
        ))}
        <a href="#schemas" className="font-semibold hover:underline">
          Schemas
        </a>
      </nav>
      <main className="min-w-0 flex-1 space-y-8">
        <header className="space-y-3">
          <h1 className="text-2xl font-semibold">
            {doc.info.title as string}{" "}
            <span className="text-base font-normal text-slate-500">{doc.info.version as string}</span>
          </h1>
          <Text>{doc.info.description as string}</Text>
          <p className="text-sm">
            The document itself:{" "}
            <a className="text-indigo-600 underline dark:text-indigo-400" href="/api/openapi.json">
              /api/openapi.json
            </a>{" "}
            (OpenAPI {doc.openapi}).
          </p>
        </header>
        {byTag.map((tag) => (
          <section key={tag.name} id={`tag-${slug(tag.name)}`} className="scroll-mt-4 space-y-4">
            <h2 className="text-xl font-semibold">{tag.name}</h2>
            <p className="text-sm text-slate-600 dark:text-slate-400">{tag.description}</p>
            {tag.entries.map((entry) => (
              <OperationView key={entry.op.operationId} entry={entry} />
            ))}
          </section>
        ))}
        <section id="schemas" className="scroll-mt-4 space-y-3">
          <h2 className="text-xl font-semibold">Schemas</h2>
          {Object.entries(doc.components.schemas ?? {}).map(([name, schema]) => (
            <details
              key={name}
              id={`schema-${name}`}
              className="scroll-mt-4 rounded border border-slate-200 p-2 dark:border-slate-800"
            >
              <summary className="cursor-pointer font-mono text-sm">{name}</summary>
              <pre className={`${PRE} mt-2`}>{show(schema)}</pre>
            </details>
          ))}
        </section>
      </main>
    </div>
  );
}

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, "-");
