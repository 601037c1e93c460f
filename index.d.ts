import { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint"
import type {
  ChannelVersions,
  Checkpoint,
  CheckpointMetadata,
  CheckpointPendingWrite,
  DeltaChannelHistory,
  PendingWrite,
  SerializerProtocol,
} from "@langchain/langgraph-checkpoint"

/**
 * Options of {@link startLocalMemory}: the flags of the
 * `agentcore-memory-local` command, in camelCase. Every one is optional.
 */
export interface LocalMemoryOptions {
  /** Address to bind. Default `"127.0.0.1"` (loopback only). */
  host?: string
  /** Port to bind; `0` picks a free one (read it back from `endpoint`). Default `0`. */
  port?: number
  /**
   * Keep events in SQLite under this directory, so they survive a restart.
   * The directory is created if missing. Default: events live in memory and
   * are gone once the server closes.
   */
  dataDir?: string
  /** Request bodies larger than this many bytes are refused with HTTP 413. Default `10_000_000`. */
  maxRequestBytes?: number
  /** Delay added to every data-plane request, in milliseconds. Default `0`. */
  latencyMs?: number
  /**
   * Fraction (0 to 1) of data-plane requests answered with HTTP 429
   * `ThrottledException`, without acting on them. Default `0`.
   */
  throttleRate?: number
  /**
   * Fraction (0 to 1) of data-plane requests answered with HTTP 500
   * `ServiceException`. Half of the injected errors on writes happen after
   * the write was applied, as when a response is lost. Default `0`.
   */
  errorRate?: number
  /** Seed of the fault injection, so a run with the same requests repeats its faults. Default: random. */
  seed?: number
  /** Requests served at once; more are refused with HTTP 429. Default `512`. */
  maxInFlight?: number
  /**
   * The order of ListEvents pages: `"newest-first"` (what AWS does, though
   * it does not promise it) or `"oldest-first"`, to test that a client stays
   * correct without that order. Default `"newest-first"`.
   */
  listOrder?: 'newest-first' | 'oldest-first'
  /**
   * The memoryId reported as {@link LocalMemoryServer.memoryId}. The server
   * accepts any well-formed memoryId; this only fixes the one handed out.
   * Default: a fresh one such as `local-3f9c2a7b1d`.
   */
  memoryId?: string
}

/** Counters of a running server, since it started or since the last reset. */
export interface LocalMemoryStats {
  /**
   * Requests per operation: `CreateEvent`, `GetEvent`, `DeleteEvent`,
   * `ListEvents`, `ListSessions`, `ListActors`. Every request counts,
   * including refused ones and those answered with an injected fault.
   */
  requests: Record<string, number>
  /** Request body bytes received. */
  bytesIn: number
  /** Response body bytes sent. */
  bytesOut: number
  /** Requests answered with HTTP 429, injected or for overload. */
  throttled: number
  /** Requests answered with an injected HTTP 500. */
  errors: number
}

/** A running local AgentCore Memory server. */
export interface LocalMemoryServer {
  /** The base URL to give an SDK as its endpoint, e.g. `http://127.0.0.1:43117`. */
  readonly endpoint: string
  /** A memoryId ready to use; any other well-formed memoryId works too. */
  readonly memoryId: string
  /** The counters since start or the last {@link resetStats}. Throws once closed. */
  stats(): LocalMemoryStats
  /** Zeroes the counters. Throws once closed. */
  resetStats(): void
  /**
   * Stops accepting requests, lets those in flight finish and closes the
   * store. Calling it again is harmless.
   */
  close(): Promise<void>
}

/**
 * Starts a local Amazon Bedrock AgentCore Memory data plane (events,
 * sessions, actors) in this process. Point an AWS SDK at `endpoint` with any
 * region and any static credentials.
 *
 * The server runs on the addon's own threads and does not keep Node's event
 * loop alive: a script that only serves must keep itself running.
 */
export function startLocalMemory(options?: LocalMemoryOptions): Promise<LocalMemoryServer>

/** Static AWS credentials for {@link AgentCoreSaverOptions.credentials}. */
export interface AgentCoreCredentials {
  accessKeyId: string
  secretAccessKey: string
  /** For temporary credentials. */
  sessionToken?: string
}

/** Receives {@link AgentCoreSaver}'s warnings, such as events it skipped as not its own. */
export interface AgentCoreLogger {
  warn(message: string): void
}

/**
 * Options of {@link AgentCoreSaver}. They are checked when the saver is
 * constructed: an unknown option or a value of the wrong type throws a
 * `TypeError` there.
 */
export interface AgentCoreSaverOptions {
  /**
   * The AgentCore Memory to keep checkpoints in: its id (e.g.
   * `"my_memory-a1b2c3d4e5"`) or ARN. Required, unless the environment
   * variable `AGENTCORE_MEMORY_ID` is set.
   */
  memoryId?: string
  /**
   * The AgentCore actorId checkpoints are kept under when a config has no
   * `configurable.actor_id`. Default `"langgraph"`.
   */
  actorId?: string
  /**
   * AWS region. Default: the AWS config chain (`AWS_REGION`, profile...);
   * `us-east-1` against a loopback endpoint.
   */
  region?: string
  /**
   * Base URL of the AgentCore data plane, e.g. the `endpoint` of
   * {@link startLocalMemory}. Default: the environment variable
   * `AWS_ENDPOINT_URL_BEDROCK_AGENTCORE`, then `AWS_ENDPOINT_URL`, then
   * AWS's own endpoint for the region.
   */
  endpoint?: string
  /**
   * Static credentials. Default: the AWS default credential chain; against
   * a loopback endpoint without credentials, placeholder ones.
   */
  credentials?: AgentCoreCredentials
  /**
   * How values are serialized. Default: LangGraph's `JsonPlusSerializer`.
   * Its `[type, bytes]` pairs are stored untouched.
   */
  serde?: SerializerProtocol
  /**
   * Told about events the saver skips as not its own, once per event.
   * Default: `console.warn` with a package prefix.
   */
  logger?: AgentCoreLogger
  /**
   * Attempts per request, including the first, with exponential backoff
   * and full jitter; a positive integer. Default `5`.
   */
  maxAttempts?: number
  /** TCP and TLS connect timeout, in milliseconds; a positive integer. Default `3000`. */
  connectTimeoutMs?: number
  /** Timeout of one attempt, in milliseconds; a positive integer. Default `20000`. */
  requestTimeoutMs?: number
  /** Timeout of a request with all its retries, in milliseconds; a positive integer. Default `60000`. */
  operationTimeoutMs?: number
  /**
   * The largest CreateEvent request to make, in bytes; at least 16384.
   * A checkpoint or pending write larger than this is split into several
   * events and becomes visible only once all of them are stored.
   * Default `1048576` (1 MiB).
   */
  maxEventBytes?: number
  /** Compress stored records with zstd when that makes them smaller. Default `true`. */
  compress?: boolean
  /**
   * Serve `getTuple` of checkpoints this process wrote or read from memory,
   * with no request. Safe only when this process is the only writer of its
   * threads (one AgentCore Runtime session per thread, for example): writes
   * by another process to a thread it has cached are not seen. Default `false`.
   */
  cache?: boolean
  /**
   * Keep only the newest checkpoint of each thread and namespace: each put
   * deletes its parent (one DeleteEvent), and each put and putWrites one of
   * the parent's pending-write events. `getTuple` costs the same. Default `false`.
   */
  shallow?: boolean
}

/**
 * A LangChain `RunnableConfig` as far as a checkpoint saver reads and
 * returns one: `configurable.thread_id`, `checkpoint_ns`, `checkpoint_id`
 * and `actor_id`. Every `RunnableConfig` is one, and one is a valid
 * `RunnableConfig`.
 *
 * It is written out rather than imported from `@langchain/core` because
 * that package ships separate ES module and CommonJS typings whose
 * `RunnableConfig`s TypeScript holds incompatible (they hold classes with
 * protected members). This package's typings are CommonJS; with
 * `moduleResolution: "node16"` an ES module project sees the other build,
 * and a saver typed with the CommonJS `RunnableConfig` could not be passed
 * to its `compile({ checkpointer })`.
 */
export interface CheckpointConfig {
  configurable?: Record<string, any>
}

/** A checkpoint with its config, metadata and pending writes, as {@link AgentCoreSaver} reads it. */
export interface AgentCoreCheckpointTuple {
  config: CheckpointConfig
  checkpoint: Checkpoint
  metadata?: CheckpointMetadata
  parentConfig?: CheckpointConfig
  pendingWrites?: CheckpointPendingWrite[]
}

/** Options of {@link AgentCoreSaver.list}. */
export interface AgentCoreListOptions {
  /** At most this many checkpoints (a positive integer), counted after `filter`. */
  limit?: number
  /** Only checkpoints older than this config's `configurable.checkpoint_id`. */
  before?: CheckpointConfig
  /** Only checkpoints whose metadata has these keys with these (string, number, boolean or null) values. */
  filter?: Record<string, any>
}

/**
 * A LangGraph checkpoint saver on Amazon Bedrock AgentCore Memory: pass it
 * as `checkpointer` to `graph.compile()`.
 *
 * Its methods are those of `BaseCheckpointSaver`, with configs typed as
 * {@link CheckpointConfig} so the class fits `BaseCheckpointSaver` from
 * either build of LangGraph's typings.
 */
export declare class AgentCoreSaver extends BaseCheckpointSaver<number> {
  constructor(options?: AgentCoreSaverOptions)
  /** The native object that talks to AgentCore. Not part of the API. */
  readonly inner: unknown
  get(config: CheckpointConfig): Promise<Checkpoint | undefined>
  getTuple(config: CheckpointConfig): Promise<AgentCoreCheckpointTuple | undefined>
  list(config: CheckpointConfig, options?: AgentCoreListOptions): AsyncGenerator<AgentCoreCheckpointTuple>
  put(
    config: CheckpointConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<CheckpointConfig>
  putWrites(config: CheckpointConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void>
  deleteThread(threadId: string): Promise<void>
  /**
   * Copies every checkpoint and pending write of every namespace of one
   * thread to another, which must have no checkpoints (else it rejects).
   * The copy reads exactly like the source. Running it again after an
   * interruption completes it. Resolves to the number of records copied.
   */
  copyThread(sourceThreadId: string, targetThreadId: string, options?: { actorId?: string }): Promise<number>
  /**
   * Keeps the newest `keepLast` checkpoints (default 1) of each namespace
   * of each thread, with their pending writes and the values they read, and
   * deletes the rest; `strategy: 'delete'` deletes the threads outright.
   * Resolves to the number of events deleted.
   */
  prune(threadIds: string[], options?: { keepLast?: number; strategy?: 'keep_latest' | 'delete' }): Promise<number>
  /**
   * Deletes the checkpoints and pending writes of the given runs (metadata
   * `run_id`, recorded from `configurable.run_id` or `metadata.run_id` of the
   * config passed to `put`), in every thread. Resolves to the number of
   * events deleted.
   */
  deleteForRuns(runIds: string[]): Promise<number>
  getDeltaChannelHistory(options: {
    config: CheckpointConfig
    channels: string[]
  }): Promise<Record<string, DeltaChannelHistory>>
}

/**
 * An error from AgentCore: `name` (also `code`) is the service's error
 * name, such as `"ThrottledException"` or `"ResourceNotFoundException"`.
 */
export declare class AgentCoreError extends Error {
  constructor(
    message: string,
    options?: { name?: string; status?: number; operation?: string; cause?: unknown },
  )
  name: string
  /** Same as `name`. */
  code: string
  /** The HTTP status, when there was a response. */
  status?: number
  /** The AgentCore operation, such as `"CreateEvent"`. */
  operation?: string
}
