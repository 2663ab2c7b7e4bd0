"""A hash-table probe, line for line from the vendor's CPU-simulator system test
``tests/cpu/st/testcase/hashfind/hashfind_kernel.cpp`` (runHashFind<16, 16, 512, 64>): hash each
of 16x16 queries with vector ops, then probe a 512-slot linear-probing table up to 64 times with
two MGATHER<Elem>, TCMP, TSEL and TOR, leaving the loop when every lane is done (read from the
mask tile, per instance). No TASSIGN: the tiles are placed automatically (``__PTO_AUTO__``).

``hash_find`` is the vendor's kernel as written; ``hash_find_portable`` differs in one line, the
TCVT(int32 -> uint32) that no NPU has (A5: a compile error, A2/A3: a silent no-op) replaced by a
TMOV, a bit copy on A5. Fuzz them:

    ptogpu fuzz --kernel examples/hash_probe.py:hash_find --pair cpu:a2a3 -n 2000
    ptogpu fuzz --kernel examples/hash_probe.py:hash_find_portable --pair cpu:a5 -n 2000
"""
import numpy as np

import ptogpu as pto
import ptogpu.fuzz

K_HASH_MUL1 = 0x7FEB352D
K_HASH_MUL2 = 0x846CA68B
K_EMPTY_KEY = -2 ** 31                  # std::numeric_limits<int32_t>::min()
K_NOT_FOUND = -1
ROWS, COLS, CAP, MAX_PROBE = 16, 16, 512, 64

V, RM = pto.TileType.Vec, pto.BLayout.RowMajor
TileI32 = pto.Tile[V, pto.int32, ROWS, COLS, RM, -1, -1]
TileU32 = pto.Tile[V, pto.uint32, ROWS, COLS, RM, -1, -1]
K_PACKED_COLS = (COLS + 7) // 8
K_MASK_TILE_COLS = ((K_PACKED_COLS + 31) // 32) * 32          # align to 32 bytes per row
TileMask = pto.Tile[V, pto.uint8, ROWS, K_MASK_TILE_COLS, RM, -1, -1]
TableGT = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, CAP], pto.Stride[1, 1, 1, CAP, 1]]
TileGT = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, ROWS, COLS], pto.Stride[1, 1, 1, COLS, 1]]


def _hash_find(out, table_keys, table_vals, queries, reinterpret):
    keysGlobal = TableGT(table_keys)
    valsGlobal = TableGT(table_vals)
    queryGlobal = TileGT(queries)
    outGlobal = TileGT(out)

    qTile = TileI32(ROWS, COLS)
    qU32Tile = TileU32(ROWS, COLS)
    outTile = TileI32(ROWS, COLS)
    hTile = TileU32(ROWS, COLS)
    idxTile = TileU32(ROWS, COLS)
    keyTile = TileI32(ROWS, COLS)
    valTile = TileI32(ROWS, COLS)

    # Scratch tiles for vector-tile operations.
    shift16 = TileU32(ROWS, COLS)
    shift15 = TileU32(ROWS, COLS)
    tmpU32 = TileU32(ROWS, COLS)
    xorTmp = TileU32(ROWS, COLS)
    emptyKeyTile = TileI32(ROWS, COLS)
    tmpI32 = TileI32(ROWS, COLS)

    # Bit-packed mask tiles: each uint8 element stores 8 comparison results (one per column).
    emptyTile = TileMask(ROWS, K_PACKED_COLS)
    shouldWrite = TileMask(ROWS, K_PACKED_COLS)

    pto.TLOAD(qTile, queryGlobal)
    reinterpret(qU32Tile, qTile)

    # Initialize output, done flags and the all-ones mask used to compute pending = ~done.
    pto.TEXPANDS(outTile, K_NOT_FOUND)
    pto.TEXPANDS(emptyKeyTile, K_EMPTY_KEY)

    mask = CAP - 1

    # h = hash_u32(q) & (cap - 1)
    pto.TMOV(hTile, qU32Tile)
    pto.TEXPANDS(shift16, 16)
    pto.TEXPANDS(shift15, 15)

    pto.TSHR(tmpU32, hTile, shift16)
    pto.TXOR(hTile, hTile, tmpU32, xorTmp)
    pto.TMULS(hTile, hTile, K_HASH_MUL1)

    pto.TSHR(tmpU32, hTile, shift15)
    pto.TXOR(hTile, hTile, tmpU32, xorTmp)
    pto.TMULS(hTile, hTile, K_HASH_MUL2)

    pto.TSHR(tmpU32, hTile, shift16)
    pto.TXOR(hTile, hTile, tmpU32, xorTmp)
    pto.TANDS(hTile, hTile, mask)

    for probe in range(MAX_PROBE):
        # idx = (h + probe) & mask
        pto.TMOV(idxTile, hTile)
        pto.TADDS(idxTile, idxTile, probe)
        pto.TANDS(idxTile, idxTile, mask)

        pto.MGATHER[pto.Coalesce.Elem](keyTile, keysGlobal, idxTile)
        pto.MGATHER[pto.Coalesce.Elem](valTile, valsGlobal, idxTile)

        # match = (key == query), empty = (key == empty_key)
        pto.TCMP(shouldWrite, keyTile, qTile, pto.CmpMode.EQ)
        pto.TCMP(emptyTile, keyTile, emptyKeyTile, pto.CmpMode.EQ)

        # out = shouldWrite ? val : out
        pto.TSEL(outTile, shouldWrite, valTile, outTile, tmpI32)

        # done |= (match | empty)
        pto.TOR(shouldWrite, shouldWrite, emptyTile)

        # Early-exit: all lanes are done once every packed mask byte has all bits set.
        any_pending = False
        for r in range(ROWS):
            if any_pending:
                break
            for c in range(K_PACKED_COLS):
                if shouldWrite.data()[r * K_MASK_TILE_COLS + c] != 0xFF:
                    any_pending = True
                    break
        if not any_pending:
            break

    pto.TSTORE(outGlobal, outTile)


def hash_find(out, table_keys, table_vals, queries):
    """out, table_keys, table_vals, queries: __gm__ int32_t* (the vendor's kernel)."""
    _hash_find(out, table_keys, table_vals, queries,
               lambda qU32Tile, qTile: pto.TCVT(qU32Tile, qTile, pto.RoundMode.CAST_NONE))


def hash_find_portable(out, table_keys, table_vals, queries):
    """The same with TMOV(qU32Tile, qTile) for the TCVT: a bit copy on A5, a value copy (the
    same bits) on the simulator."""
    _hash_find(out, table_keys, table_vals, queries, lambda qU32Tile, qTile: pto.TMOV(qU32Tile, qTile))


# -- the table, as the vendor's gen_data.py builds it (seed 19, load factor 0.5) ------------------
def hash_u32(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.uint32, copy=True)
    x ^= x >> np.uint32(16)
    x *= np.uint32(K_HASH_MUL1)
    x ^= x >> np.uint32(15)
    x *= np.uint32(K_HASH_MUL2)
    x ^= x >> np.uint32(16)
    return x


def build_table(seed: int = 19):
    rng = np.random.default_rng(seed)
    keys = rng.choice(np.arange(1, 1_000_000, dtype=np.int32), size=CAP // 2, replace=False).astype(np.int32)
    table_keys = np.full(CAP, K_EMPTY_KEY, np.int32)
    table_vals = np.zeros(CAP, np.int32)
    for k in keys:
        idx = int(hash_u32(np.array([k]))[0]) & (CAP - 1)
        while table_keys[idx] != K_EMPTY_KEY:
            idx = (idx + 1) & (CAP - 1)
        table_keys[idx], table_vals[idx] = k, k * 3 + 1
    return keys, table_keys, table_vals


def lookup(queries: np.ndarray, table_keys: np.ndarray, table_vals: np.ndarray) -> np.ndarray:
    """The vendor's golden: a scalar linear probe of at most MAX_PROBE slots."""
    out = np.full(queries.shape, K_NOT_FOUND, np.int32)
    for i, q in enumerate(queries.reshape(-1)):
        idx = int(hash_u32(np.array([q]).astype(np.int32).view(np.uint32))[0]) & (CAP - 1)
        for _ in range(MAX_PROBE):
            if table_keys[idx] == q:
                out.reshape(-1)[i] = table_vals[idx]
                break
            if table_keys[idx] == K_EMPTY_KEY:
                break
            idx = (idx + 1) & (CAP - 1)
    return out


KEYS, TABLE_KEYS, TABLE_VALS = build_table()
_FUZZ = dict(inputs={"queries": pto.fuzz.picks(ROWS * COLS, KEYS, pto.int32, rate=0.5)},   # half hits
             outputs={"out": (ROWS * COLS, pto.int32)},
             fixed={"table_keys": TABLE_KEYS, "table_vals": TABLE_VALS})
FUZZ = {"hash_find": dict(_FUZZ, pair="cpu:a2a3"), "hash_find_portable": dict(_FUZZ, pair="cpu:a5")}
