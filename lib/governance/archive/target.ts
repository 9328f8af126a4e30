import "server-only";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { pathToFileURL } from "node:url";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";

export { archiveAfterDaysFromEnv } from "./settings";

/** What an object holds, as read back from where it is stored. */
export type ObjectFacts = { bytes: number; sha256: string };

/**
 * Where archives go: a directory or an S3-compatible bucket. Keys are relative ("<tenant>/<YYYY-MM>/<file>");
 * every object is written from a finished local file, so a half-written object is never taken for a whole one.
 */
export interface ArchiveTarget {
  /** The URI of a key (file:///…, s3://bucket/…): what ledger_archive and the replay page show. */
  location(key: string): string;
  /** Stores the local file under `key`, replacing what was there; the file is consumed (moved or uploaded). */
  put(key: string, file: string): Promise<void>;
  has(key: string): Promise<boolean>;
  /** The object's size and sha256, read back in full; null when there is none. */
  facts(key: string): Promise<ObjectFacts | null>;
  read(key: string): Promise<Readable>;
  remove(key: string): Promise<void>;
  /** A directory for the local files written before `put` (on the same file system for a directory target). */
  scratchDir(): string;
}

export async function sha256Of(stream: Readable): Promise<ObjectFacts> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of stream) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest("hex") };
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException)?.code === "ENOENT";

export class DirectoryTarget implements ArchiveTarget {
  constructor(readonly dir: string) {}

  private file(key: string) {
    return path.join(this.dir, ...key.split("/"));
  }
  location(key: string) {
    return pathToFileURL(this.file(key)).href;
  }
  scratchDir() {
    return path.join(this.dir, ".incoming");
  }
  async put(key: string, file: string) {
    await mkdir(path.dirname(this.file(key)), { recursive: true });
    // A rename within one file system: the object appears whole or not at all.
    await rename(file, this.file(key));
  }
  async has(key: string) {
    try {
      await stat(this.file(key));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }
  async facts(key: string) {
    if (!(await this.has(key))) return null;
    return sha256Of(createReadStream(this.file(key)));
  }
  async read(key: string) {
    if (!(await this.has(key))) throw new Error(`no archive object ${this.location(key)}`);
    return createReadStream(this.file(key));
  }
  async remove(key: string) {
    await rm(this.file(key), { force: true });
  }
}

export type S3TargetOptions = { bucket: string; prefix?: string; endpoint?: string; region?: string };

export class S3Target implements ArchiveTarget {
  private readonly client: S3Client;
  private readonly prefix: string;

  constructor(
    readonly options: S3TargetOptions,
    private readonly scratch: string,
  ) {
    this.prefix = (options.prefix ?? "").replace(/^\/+|\/+$/g, "");
    // Credentials from the SDK's default chain (environment, profile, instance role…).
    this.client = new S3Client({
      // Unset: the SDK's own (AWS_REGION, the profile); an S3-compatible store needs one to sign with.
      region: options.region || (options.endpoint ? "us-east-1" : undefined),
      ...(options.endpoint
        ? {
            endpoint: options.endpoint,
            forcePathStyle: true,
            // S3-compatible stores (MinIO, s3rver) may not take the SDK's streamed checksum trailers.
            requestChecksumCalculation: "WHEN_REQUIRED" as const,
            responseChecksumValidation: "WHEN_REQUIRED" as const,
          }
        : {}),
    });
  }

  private objectKey(key: string) {
    return this.prefix ? `${this.prefix}/${key}` : key;
  }
  location(key: string) {
    return `s3://${this.options.bucket}/${this.objectKey(key)}`;
  }
  scratchDir() {
    return this.scratch;
  }
  async put(key: string, file: string) {
    const { size } = await stat(file);
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.options.bucket,
          Key: this.objectKey(key),
          Body: createReadStream(file),
          ContentLength: size,
        }),
      );
    } finally {
      await rm(file, { force: true });
    }
  }
  async has(key: string) {
    try {
      await this.client.send(
        new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }),
      );
      return true;
    } catch (error) {
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404)
        return false;
      throw error;
    }
  }
  async facts(key: string) {
    if (!(await this.has(key))) return null;
    return sha256Of(await this.read(key));
  }
  async read(key: string) {
    const res = await this.client.send(
      new GetObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }),
    );
    return res.Body as Readable;
  }
  async remove(key: string) {
    await this.client.send(
      new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }),
    );
  }
  close() {
    this.client.destroy();
  }
}

/**
 * The archive target from the environment: `ARCHIVE_DIR`, else `ARCHIVE_S3_BUCKET` (with `ARCHIVE_S3_PREFIX`,
 * `ARCHIVE_S3_ENDPOINT` for S3-compatible stores, `ARCHIVE_S3_REGION`); null when neither is set (no archiving).
 */
export function archiveTargetFromEnv(
  env: Record<string, string | undefined> = process.env,
  scratch = path.join(os.tmpdir(), "tollgate-archive"),
): ArchiveTarget | null {
  const dir = env.ARCHIVE_DIR?.trim();
  if (dir) return new DirectoryTarget(path.resolve(dir));
  const bucket = env.ARCHIVE_S3_BUCKET?.trim();
  if (!bucket) return null;
  return new S3Target(
    {
      bucket,
      prefix: env.ARCHIVE_S3_PREFIX?.trim() || undefined,
      endpoint: env.ARCHIVE_S3_ENDPOINT?.trim() || undefined,
      region: env.ARCHIVE_S3_REGION?.trim() || undefined,
    },
    scratch,
  );
}
