"""Kernels that branch on what they read, in every shape the path merging of
``execution.reconverge`` must get right (tests/test_reconverge.py runs each with and without it)."""
import ptogpu as pto
import ptogpu.fuzz

V = pto.TileType.Vec
G = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, 32], pto.Stride[1, 1, 1, 32, 1]]
T = pto.Tile[V, pto.int32, 1, 32]
HALF = 16


def _setup(x):
    t, acc = T(), T()
    pto.TLOAD(t, G(x))
    pto.TEXPANDS(acc, 0)
    return t, acc


def scan_break(x, y):
    """A scan that leaves at the first match, inside a loop that leaves when one is found."""
    t, acc = _setup(x)
    for it in range(6):
        pto.TADDS(acc, acc, it)
        found = False
        for c in range(8):
            if t.data()[c] % 7 == it:
                found = True
                break
        if found:
            break
    pto.TADD(acc, acc, t)
    pto.TSTORE(G(y), acc)


def skip_rows(x, y):
    """``continue`` past the call: paths at one call site sit at other iterations of the loop."""
    t, acc = _setup(x)
    for r in range(8):
        if t.data()[r] < 0:
            continue
        pto.TADDS(acc, acc, 1)
    pto.TSTORE(G(y), acc)


def branches(x, y):
    """Other instructions on each side of a branch, then one call both reach."""
    t, acc = _setup(x)
    for k in range(3):
        if t.data()[k] > 0:
            pto.TADDS(acc, acc, 5)
        else:
            pto.TMULS(acc, acc, 3)
            pto.TADDS(acc, acc, 1)
        pto.TADD(acc, acc, t)
    pto.TSTORE(G(y), acc)


def while_count(x, y):
    """A ``while`` whose count is live after it."""
    t, acc = _setup(x)
    n = 0
    while n < 10 and t.data()[n] != 0:
        pto.TADDS(acc, acc, n)
        n += 1
    pto.TMULS(acc, acc, n + 1)
    pto.TSTORE(G(y), acc)


def _step(acc, t, k):
    if t.data()[k] > 10:
        pto.TADDS(acc, acc, k)
    return k * 2


def helper(x, y):
    """The branch in a helper; what it returns carried on."""
    t, acc = _setup(x)
    s = 0
    for k in range(4):
        s += _step(acc, t, k)
    pto.TADDS(acc, acc, s)
    pto.TSTORE(G(y), acc)


def list_loop(x, y):
    """A loop over a list (its position is not readable): no merging there."""
    t, acc = _setup(x)
    for k in [0, 3, 5, 7]:
        if t.data()[k] > 0:
            continue
        pto.TADDS(acc, acc, k)
    pto.TSTORE(G(y), acc)


def dead_value(x, y):
    """A value read, kept in a local and used after the next call: live, so in the key."""
    t, acc = _setup(x)
    for k in range(4):
        v = 2 if t.data()[k] > 0 else 5
        pto.TADDS(acc, acc, 1)
        pto.TMULS(acc, acc, v)
    pto.TSTORE(G(y), acc)


def operand_value(x, y):
    """A value read, used only as the next call's operand (on the caller's value stack, not in
    a local the call leaves live)."""
    t, acc = _setup(x)
    for k in range(3):
        pto.TADDS(acc, acc, int(t.data()[k]) % 4)
    pto.TSTORE(G(y), acc)


def early_return(x, y):
    t, acc = _setup(x)
    pto.TSTORE(G(y), t)
    if t.data()[0] > 0:
        return
    pto.TADDS(acc, acc, 7)
    pto.TSTORE(G(y), acc)


def faulting(x, y):
    """A branch that leads some instances to a call that faults (a TLOAD past GM)."""
    t, acc = _setup(x)
    for k in range(3):
        if t.data()[k] > 20:
            big = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, 32], pto.Stride[1, 1, 1, 32, 1]]
            pto.TLOAD(acc, big(x + (1 << 40)))
        pto.TADDS(acc, acc, k)
    pto.TSTORE(G(y), acc)


NAMES = ("scan_break", "skip_rows", "branches", "while_count", "helper", "list_loop", "dead_value", "operand_value",
         "early_return", "faulting")
POOL = list(range(-3, 31))
FUZZ = {name: dict(inputs={"x": pto.fuzz.picks(32, POOL, pto.int32, rate=0.97)}, outputs={"y": (32, pto.int32)},
                   pair="cpu:a5") for name in NAMES}
