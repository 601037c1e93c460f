"""The Python AgentCoreMemorySaver (PyPI `langgraph-checkpoint-aws`) under the
same workload as bench/workload.mjs gives the JS savers, against the same
local server. Reads one JSON job from argv[1], prints one JSON result.

The client's own CPU time is measured here (time.process_time); requests and
bytes come from the server's /_local/stats, reset before each phase.
"""

import json
import os
import sys
import time
import urllib.request
import uuid

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

    def __init__(self, saver, name):
        self.saver, self.name, self.step, self.parent, self.ids = saver, name, 0, None, []
        self.messages = [{"role": "user", "content": f"message {i} " + "lorem ipsum " * 8} for i in range(4)]

    def put(self, changed=None):
        values = changed or {"counter": self.step, "messages": self.messages}
        c = checkpoint(self.step, values)
        new_versions = {k: c["channel_versions"][k] for k in values}
        metadata = {"source": "loop", "step": self.step, "parents": {}}
        stored = self.saver.put(config(self.name, self.parent), c, metadata, new_versions)
        self.parent = stored["configurable"]["checkpoint_id"]
        self.ids.append(self.parent)
        self.step += 1

    def put_writes(self, task=None):
        writes = [("counter", self.step)]
        self.saver.put_writes(config(self.name, self.parent), writes, task or str(uuid.uuid4()))


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
        t = Thread(saver, f"py-{job['layout']}-{n}")
        for _ in range(n):
            t.put()
            t.put_writes()
        older = t.ids[max(0, len(t.ids) - 10)]

        def timed(call):
            return measure(endpoint, reps, call, job.get("serverPid"))

        results[str(n)] = {
            "put": timed(lambda i: t.put()),
            "putWrites": timed(lambda i: t.put_writes()),
            "getTuple": timed(lambda i: saver.get_tuple(config(t.name))),
            "getTupleById": timed(lambda i: saver.get_tuple(config(t.name, older))),
            "list": timed(lambda i: list(saver.list(config(t.name), limit=10))),
        }
    return results


def chat_bytes(job):
    """Request bytes of one superstep (a put with the grown messages channel
    and a putWrites of the two new messages) at several conversation sizes."""
    saver, endpoint = saver_for(job), job["endpoint"]
    out = {}
    for size in job["chatSizes"]:
        t = Thread(saver, f"py-chat-{job['layout']}-{size}")
        t.messages = [
            {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i}: " + "tell me more about the weather " * 5}
            for i in range(size)
        ]
        t.put({"messages": t.messages})
        stats(endpoint, reset=True)
        t.put({"messages": t.messages + t.messages[:2]})
        t.saver.put_writes(config(t.name, t.parent), [("messages", t.messages[:2])], str(uuid.uuid4()))
        out[str(size)] = stats(endpoint)["bytesIn"]
    return out


def graph_wall(job):
    """Wall time of a 20-step graph, per durability mode."""
    import operator
    from typing import Annotated, TypedDict

    from langgraph.graph import END, START, StateGraph

    class State(TypedDict):
        count: int
        log: Annotated[list, operator.add]

    def step(state):
        return {"count": state["count"] + 1, "log": [f"step {state['count']}"]}

    builder = StateGraph(State)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    builder.add_conditional_edges("step", lambda s: END if s["count"] >= 20 else "step")
    graph = builder.compile(checkpointer=saver_for(job))
    out = {}
    for durability in ["async", "sync"]:
        start = time.perf_counter()
        graph.invoke({"count": 0, "log": []}, config(f"py-graph-{durability}-{uuid.uuid4().hex[:8]}"), durability=durability)
        out[durability] = (time.perf_counter() - start) * 1000
    return out


def main():
    job = json.loads(sys.argv[1])
    kind = job["kind"]
    result = {"operations": operations, "chatBytes": chat_bytes, "graphWall": graph_wall}[kind](job)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
