"""The Python AgentCoreMemorySaver (PyPI `langgraph-checkpoint-aws`) under the
same workload as bench/workload.mjs gives the JS savers, against the same
local server. Reads one JSON job from stdin (it carries the conversation,
too long for an argument), prints one JSON result.

The client's own CPU time is measured here (time.process_time); requests and
bytes come from the server's /_local/stats, reset before each phase.
"""

import json
import os
import platform
import sys
import time
import urllib.request
import uuid
from importlib.metadata import version

from langgraph.checkpoint.base.id import uuid6
from langgraph_checkpoint_aws import AgentCoreMemorySaver

ACTOR = "bench"


def stats(endpoint, reset=False):
    if reset:
        request = urllib.request.Request(f"{endpoint}/_local/stats/reset", method="POST")
        urllib.request.urlopen(request).read()
        return None
    return json.loads(urllib.request.urlopen(f"{endpoint}/_local/stats").read())


def saver_for(job):
    return AgentCoreMemorySaver(
        job["memoryId"],
        checkpoint_format=job["layout"],
        endpoint_url=job["endpoint"],
        region_name="us-east-1",
        aws_access_key_id="bench",
        aws_secret_access_key="bench",
    )


def config(thread, checkpoint_id=None):
    configurable = {"thread_id": thread, "checkpoint_ns": "", "actor_id": ACTOR}
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def checkpoint(step, values):
    return {
        "v": 4,
        "id": str(uuid6(clock_seq=step)),
        "ts": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()),
        "channel_values": values,
        "channel_versions": {k: str(step + 1) for k in values},
        "versions_seen": {},
        "updated_channels": list(values),
    }


class Thread:
    """A thread grown one superstep at a time, as LangGraph drives a saver."""

    def __init__(self, saver, name, messages=()):
        self.saver, self.name, self.step, self.parent, self.ids = saver, name, 0, None, []
        self.messages = list(messages)

    def put(self, values=None, changed=None):
        values = values if values is not None else {"counter": self.step, "messages": self.messages}
        c = checkpoint(self.step, values)
        new_versions = {k: c["channel_versions"][k] for k in (changed if changed is not None else values)}
        metadata = {"source": "loop", "step": self.step, "parents": {}}
        stored = self.saver.put(config(self.name, self.parent), c, metadata, new_versions)
        self.parent = stored["configurable"]["checkpoint_id"]
        self.ids.append(self.parent)
        self.step += 1

    def put_writes(self, writes=None):
        writes = writes if writes is not None else [("counter", self.step)]
        self.saver.put_writes(config(self.name, self.parent), writes, str(uuid.uuid4()))


def server_cpu_ms(pid):
    """The server process's user + system CPU time, from /proc."""
    if not pid:
        return 0.0
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) * 1000 / ticks


def measure(endpoint, reps, call, pid=None):
    stats(endpoint, reset=True)
    latencies = []
    server_cpu = server_cpu_ms(pid)
    cpu = time.process_time()
    for i in range(reps):
        start = time.perf_counter()
        call(i)
        latencies.append((time.perf_counter() - start) * 1000)
    cpu = time.process_time() - cpu
    server_cpu = server_cpu_ms(pid) - server_cpu
    after = stats(endpoint)
    return {
        "latenciesMs": latencies,
        "cpuMs": cpu * 1000 / reps,
        "serverCpuMs": server_cpu / reps,
        "requests": {k: v / reps for k, v in after["requests"].items() if v},
        "bytesIn": after["bytesIn"] / reps,
        "bytesOut": after["bytesOut"] / reps,
    }


def operations(job):
    saver, endpoint, reps = saver_for(job), job["endpoint"], job["reps"]
    results = {}
    for n in job["lengths"]:
        t = Thread(saver, f"py-{job['layout']}-{n}-{uuid.uuid4().hex[:8]}", job["messages"])
        for _ in range(n):
            t.put()
            t.put_writes()
        older = t.ids[max(0, len(t.ids) - 10)]
        # Made before the timing: making a boto3 client is no part of a read.
        readers = [saver_for(job) for _ in range(reps)]

        def timed(call):
            return measure(endpoint, reps, call, job.get("serverPid"))

        # Reads first, as in workload.mjs: the writes measured after them
        # pile 100 writes onto one checkpoint, which no superstep does.
        reads = {
            "getTuple": timed(lambda i: saver.get_tuple(config(t.name))),
            "getTupleById": timed(lambda i: saver.get_tuple(config(t.name, older))),
            # A new saver per call, as in workload.mjs: a reader that never saw the id.
            "getTupleByIdFresh": timed(lambda i: readers[i].get_tuple(config(t.name, older))),
            "list": timed(lambda i: list(saver.list(config(t.name), limit=10))),
        }
        results[str(n)] = {"put": timed(lambda i: t.put()), "putWrites": timed(lambda i: t.put_writes()), **reads}
    return results


SYLLABLES = "ka ri to na me lo su vi de ra po li ne ta mo ki sa ru be no te ga hi mu ya do fe zu wa chi ro pe".split()


def chat_text(i):
    """The same message bench/workload.mjs's chatText(i) makes."""
    x = i + 1

    def next_():
        nonlocal x
        x = (x * 48271) % 2147483647
        return x

    words = []
    for _ in range(30):
        count = next_() % 3 + 1
        words.append("".join(SYLLABLES[next_() % 32] for _ in range(count)))
    return f"turn {i}: " + " ".join(words)


def chat_bytes(job):
    """Request bytes of one chat superstep as the conversation grows by two
    messages a step (a put_writes of the two, then a put of the grown
    messages channel), at each size in chatSizes, as in workload.mjs."""
    saver, endpoint, messages, sizes = saver_for(job), job["endpoint"], job["chatMessages"], job["chatSizes"]
    t = Thread(saver, f"py-chat-{job['layout']}-{uuid.uuid4().hex[:8]}")
    t.put({"turn": 0, "messages": []})
    out = {}
    for size in range(2, max(sizes) + 1, 2):
        measured = size in sizes
        if measured:
            stats(endpoint, reset=True)
        t.put_writes([("messages", messages[size - 2 : size])])
        t.put({"turn": size // 2, "messages": messages[:size]}, ["turn", "messages"])
        if measured:
            after = stats(endpoint)
            out[str(size)] = {"bytesIn": after["bytesIn"], "requests": {k: v for k, v in after["requests"].items() if v}}
    return out


def graph_wall(job):
    """Wall time of a 20-step graph, per durability mode."""
    import operator
    from typing import Annotated, TypedDict

    from langgraph.graph import END, START, StateGraph

    class State(TypedDict):
        count: int
        messages: Annotated[list, operator.add]

    reply = job["stepReply"]

    def step(state):
        return {"count": state["count"] + 1, "messages": [{"role": "assistant", "content": f"step {state['count']}: {reply}"}]}

    builder = StateGraph(State)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    builder.add_conditional_edges("step", lambda s: END if s["count"] >= 20 else "step")
    graph = builder.compile(checkpointer=saver_for(job))

    def invoke(durability):
        graph.invoke({"count": 0, "messages": []}, config(f"py-graph-{uuid.uuid4().hex[:8]}"), durability=durability)

    # One untimed run first, then the median of `runs`, as in workload.mjs.
    invoke("sync")
    out = {}
    for durability in ["async", "sync"]:
        times = []
        for _ in range(job["runs"]):
            start = time.perf_counter()
            invoke(durability)
            times.append((time.perf_counter() - start) * 1000)
        out[durability] = sorted(times)[len(times) // 2]
    return out


def versions(job):
    return {
        "python": platform.python_version(),
        "langgraph-checkpoint-aws": version("langgraph-checkpoint-aws"),
        "langgraph": version("langgraph"),
        "boto3": version("boto3"),
    }


def main():
    job = json.load(sys.stdin)
    kind = job["kind"]
    result = {"operations": operations, "chatBytes": chat_bytes, "graphWall": graph_wall, "versions": versions}[kind](job)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
