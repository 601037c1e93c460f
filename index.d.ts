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
