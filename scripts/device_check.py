"""The work of scripts/device-check.sh (see there)."""
import concurrent.futures
import json
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

KERNELS = ["qkv", "attn_out", "ffn"]


def runner():
    path = os.environ.get("HEADWAY_CUDA_RUNNER", "build/headway-cuda-runner")
    if not os.access(path, os.X_OK):
        sys.exit(f"device-check: {path} is missing (build headway here, or set HEADWAY_CUDA_RUNNER)")
    return path


def nvcc():
    found = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.access(found, os.X_OK):
        sys.exit("device-check: nvcc not found")
    return found


def params(text):
    """[(name, [values], default)] as a design's header declares them."""
    return [(m.group(1), m.group(2).split(), m.group(3))
            for m in re.finditer(r"^// param (P_\w+) (.*) default (-?\d+)\s*$", text, re.M)]


def variants(text, sweep):
    """[(suffix, prefix)]: the design at its defaults, and with --sweep each other listed value
    of one parameter at a time (the others at their defaults)."""
    declared = params(text)

    def prefix(changed=None):
        return "".join(f"#define {n} {changed[1] if changed and changed[0] == n else d}\n"
                       for n, _, d in declared)
    out = [("", prefix())]
    if sweep:
        out += [(f"-{n}-{v}", prefix((n, v))) for n, values, d in declared for v in values if v != d]
    return out


def build(arch, source_text, out_dir, name):
    src = out_dir / f"{name}.cu"
    src.write_text(source_text)
    out = out_dir / f"{name}.fatbin"
    compute = "compute_" + arch[3:]
    cmd = [nvcc(), "-fatbin", "-O3", "-std=c++17", f"-gencode=arch={compute},code=[{arch},{compute}]",
           "-I", str(out_dir), str(src), "-o", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    return (name, out if r.returncode == 0 else None, r.stderr.strip()[:400])


def run_json(args, timeout=240):
    r = subprocess.run([runner()] + args, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        sys.exit(f"device-check: {' '.join(args[:1])} failed: {r.stderr.strip()}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def time_session(kernel, modules, readings):
    args = [runner(), "serve", "--kernel", kernel, "--seed", "1"]
    for m in modules:
        args += ["--module", str(m)]
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    first = p.stdout.readline().strip()
    if not first.startswith("ready"):
        p.kill()
        return None, first
    times = [[] for _ in modules]
    clocks = []
    throttled = 0
    n = len(modules)
    for rnd in range(-2, readings):
        for k in range(n):
            i = (rnd + 2 + k) % n
            p.stdin.write(f"read {i}\n")
            reply = p.stdout.readline().split()
            if not reply or reply[0] != "ok":
                p.kill()
                return None, " ".join(reply)
            if rnd >= 0:
                times[i].append(float(reply[1]))
                clocks.append(int(reply[2]))
                throttled += int(reply[3])
    p.stdin.write("verify\n")
    verdict = p.stdout.readline().strip()
    p.stdin.write("quit\n")
    p.wait(timeout=30)
    return {"times": times, "clocks": clocks, "throttled": throttled, "verify": verdict}, None


def main():
    args = [a for a in sys.argv[1:] if a != "--sweep"]
    sweep = len(args) != len(sys.argv) - 1
    readings = int(args[0]) if args else 30
    out_root = pathlib.Path(os.environ.get("OUT") or tempfile.mkdtemp(prefix="headway-device-"))
    work = out_root / "device-check"
    work.mkdir(parents=True, exist_ok=True)
    shutil.copy("include/headway/headway_kernel.h", work / "headway_kernel.h")
    shutil.copy("include/headway/headway_cuda.h", work / "headway_cuda.h")
    shutil.copy("include/headway/headway_cuda_support.h", work / "headway_cuda_support.h")

    info = run_json(["info"])
    arch = info["arch"]
    print(f"device: {info['name']} ({arch}, {info['sm_count']} SMs, L2 {info['l2_bytes'] >> 20} MiB, "
          f"SM clock max {info['sm_clock_mhz']} MHz, driver {info['driver_version']})")
    facts = {f["name"]: f for f in run_json(["facts", "--readings", "7"])["facts"]}
    copy = facts["copy_bandwidth"]["value"]
    read = facts["read_bandwidth"]["value"] if "read_bandwidth" in facts else None
    print(f"copy bandwidth {copy:.0f} GB/s (cv {facts['copy_bandwidth']['spread']:.1f}%), "
          + (f"read bandwidth {read:.0f} GB/s (cv {facts['read_bandwidth']['spread']:.1f}%), " if read else "")
          + f"L2 copy {facts['l2_copy_bandwidth']['value']:.0f} GB/s, "
          f"launch overhead {facts['launch_overhead']['value']:.2f} us")

    jobs = []
    for k in KERNELS:
        jobs.append((k, "baseline", pathlib.Path(f"kernels/cuda/baselines/{k}.cu").read_text()))
        for d in sorted(pathlib.Path(f"kernels/cuda/designs/{k}").glob("*.cu")):
            text = d.read_text()
            for suffix, prefix in variants(text, sweep):
                jobs.append((k, d.stem + suffix, prefix + text))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 4) as pool:
        built = list(pool.map(lambda j: (j[0], j[1]) + build(arch, j[2], work, f"{j[0]}-{j[1]}")[1:], jobs))

    print(f"\n| kernel | module | check | median us | speedup | x floor |")
    print(f"|---|---|---|---|---|---|")
    summary = []
    for k in KERNELS:
        modules, names, floor_us = [], [], None
        for kernel, name, module, err in built:
            if kernel != k:
                continue
            if module is None:
                print(f"| {k} | {name} | does not build: {err.splitlines()[0] if err else ''} | | | |")
                continue
            c = run_json(["check", "--kernel", k, "--module", str(module), "--seed", "7"])
            floor_us = c["bytes_to_move"] / (copy * 1e9) * 1e6
            if c["status"] != "correct":
                print(f"| {k} | {name} | {c['status']}: {c['description'][:120]} | | | |")
                continue
            modules.append(module)
            names.append(name)
        if not modules or names[0] != "baseline":
            print(f"| {k} | - | the baseline is not correct: nothing timed | | | |")
            continue
        timed, err = time_session(k, modules, readings)
        if timed is None:
            print(f"| {k} | - | timing failed: {err} | | | |")
            continue
        medians = [statistics.median(t) * 1e6 for t in timed["times"]]
        for name, med in zip(names, medians):
            print(f"| {k} | {name} | correct | {med:.2f} | {medians[0] / med:.2f}x | {med / floor_us:.2f}x |")
        best = min(range(len(medians)), key=lambda i: medians[i])
        summary.append((k, names[best], medians[0] / medians[best], medians[best] / floor_us))
        print(f"|  | ({readings} readings each; SM clock {min(timed['clocks'])}-{max(timed['clocks'])} MHz; "
              f"{timed['throttled']} throttled; timed outputs: {timed['verify']}) | | | | |")
    if summary:
        geo = 1.0
        for s in summary:
            geo *= s[2]
        geo **= 1.0 / len(summary)
        print("\nheads: " + ", ".join(f"{k} {n} {sp:.2f}x ({fl:.2f}x floor)" for k, n, sp, fl in summary)
              + f"; geomean speedup {geo:.2f}x")


if __name__ == "__main__":
    main()
