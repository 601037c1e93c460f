'use strict'
// The promises of writes in flight. The native side takes a write with an
// id and reports its end through one callback, `settle(id, error)`, rather
// than returning a promise of its own: napi-rs would back each such promise
// with a threadsafe function (about a kilobyte of native memory), and under
// LangGraph's default durability tens of thousands of writes are pending
// at once.

const { fromNative } = require('./errors.js')

const MAX_ID = 0xffffffff

class PendingCalls {
  constructor() {
    this.next = 0
    this.waiting = new Map()
    this.settle = (id, error) => {
      const call = this.waiting.get(id)
      if (!call) return
      this.waiting.delete(id)
      if (error == null) call.resolve()
      else call.reject(fromNative(new Error(error)))
    }
  }

  /**
   * Calls `begin(id)`, which hands a write over under `id`, and returns the
   * promise `settle` keeps. If `begin` throws, no promise is made.
   */
  start(begin) {
    const id = this.next
    // Ids are u32s; by the time they wrap, the write that had 0 is long done.
    this.next = id === MAX_ID ? 0 : id + 1
    begin(id)
    return new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }))
  }
}

module.exports = { PendingCalls }
