#!/usr/bin/env python3
"""A loopback OpenAI-compatible chat server for measuring the optimize loop with a slow agent.

Usage: scripts/slow-agent.py PORT DELAY_SECONDS [SEED]

Every POST (any path) is answered after DELAY_SECONDS with one of the ffn library designs
(kernels/designs/ffn/*.cc, the AVX2 ones) at parameters drawn from SEED, so that two runs see
the same answers in the same order. Then, for example:
  OPENAI_API_KEY=x headway optimize --kernels ffn --budget 4m --agent openai:slow-1 \\
      --agent-base-url http://127.0.0.1:PORT/v1 --agent-jobs 2
(docs/AGENTS.md has the figures this gave.)
"""
import http.server
import json
import pathlib
import random
import socketserver
import sys
import threading
import time

DESIGNS = pathlib.Path(__file__).resolve().parent.parent / "kernels" / "designs" / "ffn"
SOURCES = [(DESIGNS / f).read_text() for f in ("lut_shift.cc", "pshufb_bf16.cc", "shift_blocks.cc")]
PARAMS = [("P_CHUNK", [8, 16, 32]), ("P_DOWN_ROWS", [1, 2, 4]), ("P_PREFETCH", [0, 1, 2, 4])]


def main():
    port, delay = int(sys.argv[1]), float(sys.argv[2])
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length", 0)))
            time.sleep(delay)
            with lock:
                base = rng.choice(SOURCES)
                defines = "\n".join(f"#define {k} {rng.choice(v)}" for k, v in PARAMS)
                tag = rng.randrange(1 << 30)
            text = f"NAME: pick {tag}\nWHY: a try\n```cpp\n{defines}\n// {tag}\n{base}```\n"
            body = json.dumps({
                "id": "x", "object": "chat.completion", "model": "slow-1",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": 1000, "completion_tokens": 500},
            }).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True

    Server(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
