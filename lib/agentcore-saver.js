'use strict'
// AgentCoreSaver: LangGraph's BaseCheckpointSaver on Amazon Bedrock
// AgentCore Memory. This class owns `serde` (values cross to the native
// layer as the serializer's [type, bytes] pairs, untouched) and delegates
// storage to the native object it holds as `inner`.

const {
  BaseCheckpointSaver,
  TASKS,
  WRITES_IDX_MAP,
  getCheckpointId,
  maxChannelVersion,
} = require('@langchain/langgraph-checkpoint')
const { NativeSaver } = require('./load-native.js')
const { native, nativeSync } = require('./errors.js')
const { PendingCalls } = require('./pending-calls.js')
const { resolveOptions, describe } = require('./options.js')
const { checkIdList, checkPut, checkThreadId, checkWrites } = require('./validate.js')

/** Warnings about foreign events are given once per event, up to this many. */
const MAX_REPORTED = 10_000

class AgentCoreSaver extends BaseCheckpointSaver {
  constructor(options = {}) {
    const resolved = resolveOptions(options)
    super(resolved.serde)
    this.logger = resolved.logger
    this.calls = new PendingCalls()
    this.inner = nativeSync(() => new NativeSaver(resolved.native, this.calls.settle))
    this.reported = new Set()
  }

  async getTuple(config) {
    if (config?.configurable?.thread_id === undefined) return undefined
    const where = place(config, 'getTuple')
    const checkpointId = getCheckpointId(config) || undefined
    if (checkpointId !== undefined && typeof checkpointId !== 'string') {
      throw new TypeError(`AgentCoreSaver.getTuple: config.configurable.checkpoint_id must be a string, got ${describe(checkpointId)}`)
    }
    const read = await native(() => this.inner.getTuple(where, checkpointId))
    this.report(read.skipped)
    return read.tuple ? this.toTuple(read.tuple) : undefined
  }

  async *list(config, options = {}) {
    const query = listQuery(config ?? {}, options ?? {})
    const cursor = nativeSync(() => this.inner.list(query))
    try {
      for (;;) {
        const raw = await native(() => cursor.next())
        if (!raw) return
        yield await this.toTuple(raw)
      }
    } finally {
      this.report(await cursor.takeSkipped())
    }
  }

  async put(config, checkpoint, metadata, newVersions) {
    const where = place(config, 'put')
    checkPut(config, checkpoint)
    const { started } = await this.startPut(where, config, checkpoint, metadata, newVersions)
    return started.then(() => configFor(where, checkpoint.id))
  }

  /**
   * Serializes a put and hands it to the native side, which copies it
   * before returning. Resolves to `{ started }`, the call's promise: this
   * frame, and the serialized buffers only it holds, end here, so that they
   * are young garbage rather than live for as long as the write waits.
   */
  async startPut(where, config, checkpoint, metadata, newVersions) {
    metadata = withRunId(config, metadata)
    const { channel_values: values = {}, ...rest } = checkpoint
    const [serialized, serializedMetadata, newValues] = await Promise.all([
      this.serde.dumpsTyped(rest),
      this.serde.dumpsTyped(metadata),
      Promise.all(Object.entries(newVersions ?? {}).map(([channel, version]) => this.channelValue(values, channel, version))),
    ])
    const started = this.calls.start((id) =>
      this.inner.put(id, {
        place: where,
        checkpointId: checkpoint.id,
        parentId: config.configurable.checkpoint_id || undefined,
        // LangGraph treats a checkpoint without `v` as current.
        v: checkpoint.v ?? 4,
        checkpoint: typed(serialized),
        metadata: typed(serializedMetadata),
        filterable: JSON.stringify(primitiveFields(metadata)),
        versions: Object.entries(checkpoint.channel_versions ?? {}).map(([channel, version]) => ({
          channel,
          version: String(version),
        })),
        newValues,
      }),
    )
    return { started }
  }

  /** A changed channel's value, or an empty marker if it has none. */
  async channelValue(values, channel, version) {
    const value = Object.prototype.hasOwnProperty.call(values, channel)
      ? typed(await this.serde.dumpsTyped(values[channel]))
      : { type: 'empty', data: Buffer.alloc(0) }
    return { channel, version: String(version), value }
  }

  async putWrites(config, writes, taskId, taskPath = '') {
    const where = place(config, 'putWrites')
    const checkpointId = config.configurable.checkpoint_id
    if (typeof checkpointId !== 'string' || checkpointId === '') {
      throw new TypeError(
        `AgentCoreSaver.putWrites: config.configurable.checkpoint_id is required and must be a non-empty string, got ${describe(checkpointId)}`,
      )
    }
    checkWrites(writes)
    if (typeof taskId !== 'string' || taskId === '') {
      throw new TypeError(`AgentCoreSaver.putWrites: taskId must be a non-empty string, got ${describe(taskId)}`)
    }
    const { started } = await this.startWrites(where, checkpointId, writes, taskId, taskPath ?? '')
    // Returned, not awaited: tens of thousands of these can be pending at
    // once, and a suspended frame costs memory.
    return started
  }

  /** Serializes writes and hands them over, as `startPut` does. */
  async startWrites(where, checkpointId, writes, taskId, taskPath) {
    const entries = await Promise.all(
      writes.map(async ([channel, value], idx) => ({
        idx: WRITES_IDX_MAP[channel] || idx,
        channel,
        value: typed(await this.serde.dumpsTyped(value)),
      })),
    )
    const started = this.calls.start((id) => this.inner.putWrites(id, { place: where, checkpointId, taskId, taskPath, writes: entries }))
    return { started }
  }

  /**
   * Copies every checkpoint and write of every namespace of one thread to
   * another, which must have no checkpoints. Resumable: running it again
   * after an interruption completes the copy. Returns the records copied.
   */
  async copyThread(sourceThreadId, targetThreadId, { actorId } = {}) {
    checkThreadId('copyThread', 'sourceThreadId', sourceThreadId)
    checkThreadId('copyThread', 'targetThreadId', targetThreadId)
    return native(() => this.inner.copyThread(actorId, sourceThreadId, targetThreadId))
  }

  /**
   * Keeps the newest `keepLast` checkpoints of each namespace of each thread,
   * with their pending writes and the values they read, and deletes the
   * rest; `strategy: 'delete'` deletes the threads outright. Returns the
   * number of events deleted.
   */
  async prune(threadIds, { keepLast = 1, strategy = 'keep_latest' } = {}) {
    const ids = checkIdList('prune', 'threadIds', threadIds)
    if (!Number.isInteger(keepLast) || keepLast < 1) {
      throw new RangeError(`AgentCoreSaver.prune: keepLast must be a positive integer, got ${describe(keepLast)}`)
    }
    if (strategy !== 'keep_latest' && strategy !== 'delete') {
      throw new TypeError(`AgentCoreSaver.prune: strategy must be 'keep_latest' or 'delete', got ${describe(strategy)}`)
    }
    return native(() => this.inner.prune(ids, keepLast, strategy === 'delete'))
  }

  /**
   * Deletes the checkpoints, with their writes, whose metadata `run_id` is
   * one of `runIds`, in every thread; descendants that read values from
   * them get those values written inline first. Returns the events deleted.
   */
  async deleteForRuns(runIds) {
    const ids = checkIdList('deleteForRuns', 'runIds', runIds)
    return native(() => this.inner.deleteForRuns(ids))
  }

  async deleteThread(threadId) {
    checkThreadId('deleteThread', 'threadId', threadId)
    await native(() => this.inner.deleteThread(threadId))
  }

  /**
   * Reads each channel's nearest stored ancestor value and the writes since,
   * in one pass over the thread instead of one getTuple per ancestor.
   */
  async getDeltaChannelHistory({ config, channels }) {
    if (channels.length === 0 || config?.configurable?.thread_id === undefined) return {}
    const where = place(config, 'getDeltaChannelHistory')
    const read = await native(() =>
      this.inner.deltaChannelHistory(where, getCheckpointId(config) || undefined, channels),
    )
    this.report(read.skipped)
    const result = {}
    for (const history of read.channels) {
      const entry = { writes: await Promise.all(history.writes.map((w) => this.pendingWrite(w))) }
      if (history.seed) entry.seed = await this.load(history.seed)
      result[history.channel] = entry
    }
    return result
  }

  async toTuple(raw) {
    const [checkpoint, metadata, pendingWrites, values] = await Promise.all([
      this.load(raw.checkpoint),
      this.load(raw.metadata),
      Promise.all(raw.pendingWrites.map((w) => this.pendingWrite(w))),
      Promise.all(raw.values.map(async (v) => [v.channel, await this.load(v.value)])),
    ])
    checkpoint.channel_values = Object.fromEntries(values)
    if (raw.pendingSends) await this.migratePendingSends(checkpoint, raw.pendingSends)
    const where = { actorId: this.explicitActor(raw.actorId), threadId: raw.threadId, checkpointNs: raw.checkpointNs }
    const tuple = { config: configFor(where, raw.checkpointId), checkpoint, metadata, pendingWrites }
    if (raw.parentId) tuple.parentConfig = configFor(where, raw.parentId)
    return tuple
  }

  /** Checkpoints before v4 kept pending sends as writes of their parent. */
  async migratePendingSends(checkpoint, sends) {
    checkpoint.channel_values[TASKS] = await Promise.all(sends.map((s) => this.load(s)))
    checkpoint.channel_versions ??= {}
    const versions = Object.values(checkpoint.channel_versions)
    checkpoint.channel_versions[TASKS] =
      versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined)
  }

  async pendingWrite(w) {
    return [w.taskId, w.channel, await this.load(w.value)]
  }

  load(value) {
    // A plain Uint8Array view, as serializers return for "bytes" values,
    // rather than the Buffer the native layer hands over.
    const { data } = value
    return this.serde.loadsTyped(value.type, new Uint8Array(data.buffer, data.byteOffset, data.byteLength))
  }

  /** The actor to put in returned configs: only one the caller chose. */
  explicitActor(actorId) {
    return actorId === this.inner.defaultActorId ? undefined : actorId
  }

  report(skipped) {
    for (const line of skipped) {
      if (this.reported.has(line)) continue
      if (this.reported.size < MAX_REPORTED) this.reported.add(line)
      this.logger.warn(line)
    }
  }
}

/** Where a config points: actor, thread and namespace, checked. */
function place(config, op) {
  const configurable = config?.configurable
  if (configurable === undefined || configurable === null) {
    throw new TypeError(`AgentCoreSaver.${op}: config.configurable is required, with a thread_id`)
  }
  const { thread_id: threadId, checkpoint_ns: checkpointNs = '', actor_id: actorId } = configurable
  if (typeof threadId !== 'string' || threadId === '') {
    throw new TypeError(
      `AgentCoreSaver.${op}: config.configurable.thread_id must be a non-empty string, got ${describe(threadId)}`,
    )
  }
  if (typeof checkpointNs !== 'string') {
    throw new TypeError(`AgentCoreSaver.${op}: config.configurable.checkpoint_ns must be a string, got ${describe(checkpointNs)}`)
  }
  if (actorId !== undefined && (typeof actorId !== 'string' || actorId === '')) {
    throw new TypeError(`AgentCoreSaver.${op}: config.configurable.actor_id must be a non-empty string, got ${describe(actorId)}`)
  }
  return { actorId, threadId, checkpointNs }
}

function listQuery(config, { limit, before, filter }) {
  const configurable = config.configurable ?? {}
  for (const key of ['thread_id', 'checkpoint_ns', 'checkpoint_id', 'actor_id']) {
    const value = configurable[key]
    if (value !== undefined && typeof value !== 'string') {
      throw new TypeError(`AgentCoreSaver.list: config.configurable.${key} must be a string, got ${describe(value)}`)
    }
  }
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) {
    throw new RangeError(`AgentCoreSaver.list: limit must be a positive integer, got ${limit}`)
  }
  const beforeId = before?.configurable?.checkpoint_id
  if (before !== undefined && (typeof beforeId !== 'string' || beforeId === '')) {
    throw new TypeError('AgentCoreSaver.list: before must be a config with configurable.checkpoint_id')
  }
  return {
    actorId: configurable.actor_id,
    threadId: configurable.thread_id || undefined,
    checkpointNs: configurable.checkpoint_ns,
    checkpointId: configurable.checkpoint_id || undefined,
    before: beforeId,
    limit,
    filter: filter === undefined ? undefined : JSON.stringify(checkFilter(filter)),
  }
}

/** `list` filters compare with `===`, so only primitives can ever match. */
function checkFilter(filter) {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) {
    throw new TypeError(`AgentCoreSaver.list: filter must be an object, got ${describe(filter)}`)
  }
  for (const [key, value] of Object.entries(filter)) {
    if (!isPrimitive(value)) {
      throw new TypeError(`AgentCoreSaver.list: filter.${key} must be a string, number, boolean or null, got ${describe(value)}`)
    }
  }
  return filter
}

function isPrimitive(value) {
  return value === null || ['string', 'boolean'].includes(typeof value) || Number.isFinite(value)
}

/**
 * LangGraph.js does not put a run id into checkpoint metadata: record
 * `configurable.run_id` (or `metadata.run_id`) of the put's config, so that
 * `list(config, { filter: { run_id } })` and `deleteForRuns` find it.
 */
function withRunId(config, metadata) {
  const runId = config?.configurable?.run_id ?? config?.metadata?.run_id
  if (runId === undefined || metadata?.run_id !== undefined) return metadata
  return { ...metadata, run_id: runId }
}

function primitiveFields(metadata) {
  return Object.fromEntries(Object.entries(metadata ?? {}).filter(([, value]) => isPrimitive(value)))
}

function configFor({ actorId, threadId, checkpointNs }, checkpointId) {
  const configurable = { thread_id: threadId, checkpoint_ns: checkpointNs, checkpoint_id: checkpointId }
  if (actorId !== undefined) configurable.actor_id = actorId
  return { configurable }
}

/** The [type, bytes] pair of a serializer, as the native layer takes it. */
function typed([type, bytes]) {
  const data = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return { type, data }
}

module.exports = { AgentCoreSaver }
