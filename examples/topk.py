"""Top-k per row, line for line from the vendor's kernels/manual/a2a3/topk/topk_kernel.cpp
(runTOPK on one core, float, at a smaller size: 4 rows of 256 valid columns of a 320-column
source, top 96): TSORT32 sorts blocks of 32 into (value, index) records, TMRGSORT merges groups of
4 blocks (then the tail lists, a list merged into itself), TMOV moves rows, TGATHER's mask
patterns (P0101, P1010) split values from indices; ping-pong buffers with set_flag/wait_flag.
The vendor builds it for A2/A3 only; fuzz it across the NPUs:

    ptogpu fuzz --kernel examples/topk.py:topk --pair a2a3:a5 -n 200
"""
import numpy as np

import ptogpu as pto
import ptogpu.fuzz

BUFFER_NUM = 2
SINGLE_LOOP_ROW = 2
V, RM = pto.TileType.Vec, pto.BLayout.RowMajor
T, SIZE, TYPE_COEF = pto.float32, 4, 1                  # sizeof(float) / sizeof(T)
VALID_ROW, VALID_COL, COLS, TOPK = 4, 256, 320, 96      # gShape3, gShape4, gWholeShape4, topk
DST_COLS = VALID_COL * 2 * TYPE_COEF
EVENT = (pto.EVENT_ID0, pto.EVENT_ID1, pto.EVENT_ID2, pto.EVENT_ID3)

DstTileData = pto.Tile[V, T, SINGLE_LOOP_ROW, DST_COLS, RM, SINGLE_LOOP_ROW, DST_COLS]
SrcTileData = pto.Tile[V, T, SINGLE_LOOP_ROW, VALID_COL, RM, SINGLE_LOOP_ROW, VALID_COL]
SingleRowTileData = pto.Tile[V, T, 1, DST_COLS, RM, -1, -1]
IndexTileData = pto.Tile[V, pto.uint32, 1, VALID_COL, RM, 1, VALID_COL]
DstDataTileData = pto.Tile[V, T, SINGLE_LOOP_ROW, TOPK, RM, SINGLE_LOOP_ROW, TOPK]
DstIndexTileData = pto.Tile[V, pto.uint32, SINGLE_LOOP_ROW, TOPK, RM, SINGLE_LOOP_ROW, TOPK]
IndexGlobalData = pto.GlobalTensor[pto.uint32, pto.Shape[1, 1, 1, 1, VALID_COL],
                                   pto.Stride[VALID_COL, VALID_COL, VALID_COL, VALID_COL, 1]]
GlobalData = pto.GlobalTensor[T, pto.Shape[1, 1, 1, SINGLE_LOOP_ROW, VALID_COL],
                              pto.Stride[SINGLE_LOOP_ROW * COLS, SINGLE_LOOP_ROW * COLS, SINGLE_LOOP_ROW * COLS,
                                         COLS, 1]]
DstShapeDim5 = pto.Shape[1, 1, 1, SINGLE_LOOP_ROW, TOPK]
DstStridDim5 = pto.Stride[SINGLE_LOOP_ROW * TOPK, SINGLE_LOOP_ROW * TOPK, SINGLE_LOOP_ROW * TOPK, TOPK, 1]
DstDataGlobalData = pto.GlobalTensor[T, DstShapeDim5, DstStridDim5]
DstIdxGlobalData = pto.GlobalTensor[pto.uint32, DstShapeDim5, DstStridDim5]


def FillMrgArray(Cols, blockLen):
    mrgArray, tmpInner = [], Cols
    i = blockLen
    while i >= 64:
        count = 0
        while count < tmpInner // i:
            mrgArray.append(i)
            count += 1
        tmpInner -= count * i
        i //= 4
    return mrgArray


def SortTailBlock(dstTile, srcTile, blockLen, tmpAddr, Cols, topk):
    tmp1Tile = SingleRowTileData(1, Cols)
    pto.TASSIGN(tmp1Tile, tmpAddr)
    mrgArray = FillMrgArray(Cols, blockLen)
    mrgSortedLen = 0
    executedNumList = pto.MrgSortExecutedNumList()
    for i in range(len(mrgArray) - 1):
        mrgSortedLen = (mrgSortedLen + mrgArray[i]) & 0xFFFF              # uint16_t
        tmpMrgSortedLen = min(mrgSortedLen, topk)
        tmpMrgArray = min(mrgArray[i + 1], topk)
        src0Tile = SingleRowTileData(1, tmpMrgSortedLen)
        src1Tile = SingleRowTileData(1, tmpMrgArray)
        curDstTile = SingleRowTileData(1, tmpMrgSortedLen + tmpMrgArray)
        pto.TASSIGN(src0Tile, srcTile.addr)
        pto.TASSIGN(src1Tile, srcTile.addr + mrgSortedLen * SIZE)
        pto.TASSIGN(curDstTile, srcTile.addr)
        pto.TMRGSORT[False](curDstTile, executedNumList, tmp1Tile, src0Tile, src1Tile)
        pto.pipe_barrier(pto.PIPE_V)


def MrgsortSingleRow(dstTile, srcTile, tmpAddr, valid_col, dtopk):
    blockLen = 64 * TYPE_COEF
    while blockLen * 4 <= valid_col:                    # merge sort data for every 4 blockLen lengths
        cols = (valid_col // (blockLen * 4) * (blockLen * 4)) & 0xFFFF
        srcSortedTile = SingleRowTileData(1, cols)
        tmpSortedTile = SingleRowTileData(1, cols)
        pto.TASSIGN(srcSortedTile, srcTile.addr)
        pto.TASSIGN(tmpSortedTile, tmpAddr)
        pto.TMRGSORT(tmpSortedTile, srcSortedTile, blockLen)
        pto.pipe_barrier(pto.PIPE_V)
        pto.TMOV(srcSortedTile, tmpSortedTile)
        pto.pipe_barrier(pto.PIPE_V)
        blockLen *= 4
    if blockLen < valid_col:                            # sort tail block
        SortTailBlock(srcTile, srcTile, blockLen, tmpAddr, valid_col, dtopk)
    tmpMovTile = SingleRowTileData(1, dtopk)
    pto.TASSIGN(tmpMovTile, srcTile.addr)
    pto.pipe_barrier(pto.PIPE_V)
    pto.TMOV(dstTile, tmpMovTile)


def MrgsortSingleTile(dstTile, srcTile, tmpAddr, validRow, validCol, topk, kTCols_):
    for i in range(validRow):
        rowSrcTile = SingleRowTileData(1, validCol)
        pto.TASSIGN(rowSrcTile, srcTile.addr + i * kTCols_ * SIZE)
        rowDstTile = SingleRowTileData(1, validCol)
        pto.TASSIGN(rowDstTile, dstTile.addr + i * DstTileData.Cols * SIZE)
        MrgsortSingleRow(rowDstTile, rowSrcTile, tmpAddr, validCol, topk)


def SortEachGroup(dst, src, inIdx, validRow, validCol, kTCols_):
    for i in range(validRow):
        dstRowTile = SingleRowTileData(1, validCol * 2 * TYPE_COEF)
        srcRowTile = SingleRowTileData(1, validCol)
        tmpTile = SingleRowTileData(1, validCol)
        pto.TASSIGN(dstRowTile, dst.addr + i * DstTileData.Cols * SIZE)
        pto.TASSIGN(srcRowTile, src.addr + i * SrcTileData.Cols * SIZE)
        pto.TASSIGN(tmpTile, inIdx.addr + kTCols_ * 4)
        pto.TSORT32(dstRowTile, srcRowTile, inIdx, tmpTile)
        pto.pipe_barrier(pto.PIPE_V)


def ExtractDataOrIndex(dstTile, srcTile, isIndex, DstType):
    for i in range(srcTile.valid_row):
        rowTile = SingleRowTileData(1, srcTile.valid_col)
        pto.TASSIGN(rowTile, srcTile.addr + i * DstTileData.Cols * SIZE)
        if not isIndex:
            rowDTile = SingleRowTileData(1, dstTile.valid_col)
            pto.TASSIGN(rowDTile, dstTile.addr + i * DstType.Cols * SIZE)
            pto.TGATHER[SingleRowTileData, SingleRowTileData, pto.MaskPattern.P0101](rowDTile, rowTile)
        else:
            CopySrcTileData = pto.Tile[V, pto.uint32, 1, DstType.Cols * 2, RM, -1, -1]
            copyTile = CopySrcTileData(1, dstTile.valid_col * 2)
            pto.TASSIGN(copyTile, rowTile.addr)
            IndexRowTileData = pto.Tile[V, pto.uint32, 1, DstType.Cols, RM, -1, -1]
            rowITile = IndexRowTileData(1, dstTile.valid_col)
            pto.TASSIGN(rowITile, dstTile.addr + i * DstType.Cols * 4)
            pto.TGATHER[IndexRowTileData, CopySrcTileData, pto.MaskPattern.P1010](rowITile, copyTile)


def ProcessSingleRow(cur, srcGlobal, dstDataGlobal, dstIdxGlobal, sort32DstTile, srcTile, indexTile, mrgDstTile,
                     dTile, iTile, tmpAddr, loadEvent, storeEvent):
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE2, loadEvent)
    pto.TLOAD(srcTile[cur], srcGlobal)
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, EVENT[cur])
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, EVENT[cur])
    SortEachGroup(sort32DstTile[cur], srcTile[cur], indexTile, SINGLE_LOOP_ROW, VALID_COL, VALID_COL)
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE2, loadEvent)
    pto.pipe_barrier(pto.PIPE_V)
    MrgsortSingleTile(mrgDstTile[cur], sort32DstTile[cur], tmpAddr, SINGLE_LOOP_ROW, DST_COLS,
                      TOPK * 2 * TYPE_COEF, DST_COLS)
    pto.pipe_barrier(pto.PIPE_V)
    ExtractDataOrIndex(dTile[cur], mrgDstTile[cur], False, DstDataTileData)
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, EVENT[storeEvent])
    pto.pipe_barrier(pto.PIPE_V)
    ExtractDataOrIndex(iTile[cur], mrgDstTile[cur], True, DstIndexTileData)
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, EVENT[storeEvent + 2])
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, EVENT[storeEvent])
    pto.TSTORE(dstDataGlobal, dTile[cur])
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, EVENT[storeEvent + 2])
    pto.TSTORE(dstIdxGlobal, iTile[cur])


def ProcessIteration(out, src, index, i, tmpAddr, nextTmpAddr, sort32DstTile, srcTile, indexTile, mrgDstTile,
                     dTile, iTile):
    src0Global = GlobalData(src + i * SINGLE_LOOP_ROW * COLS)                 # ND2ND
    src1Global = GlobalData(src + i * SINGLE_LOOP_ROW * COLS + SINGLE_LOOP_ROW * COLS)
    dst0DataGlobal = DstDataGlobalData(out + i * SINGLE_LOOP_ROW * TOPK)
    dst1DataGlobal = DstDataGlobalData(out + i * SINGLE_LOOP_ROW * TOPK + SINGLE_LOOP_ROW * TOPK)
    dst0IdxGlobal = DstIdxGlobalData(index + i * SINGLE_LOOP_ROW * TOPK)
    dst1IdxGlobal = DstIdxGlobalData(index + i * SINGLE_LOOP_ROW * TOPK + SINGLE_LOOP_ROW * TOPK)
    ProcessSingleRow(0, src0Global, dst0DataGlobal, dst0IdxGlobal, sort32DstTile, srcTile, indexTile, mrgDstTile,
                     dTile, iTile, tmpAddr, pto.EVENT_ID0, 0)
    ProcessSingleRow(1, src1Global, dst1DataGlobal, dst1IdxGlobal, sort32DstTile, srcTile, indexTile, mrgDstTile,
                     dTile, iTile, nextTmpAddr, pto.EVENT_ID1, 1)


def InitBuffers(baseAddr, sort32DstTile, mrgDstTile, srcTile, indexTile, dTile, iTile):
    sort32DstSize = SINGLE_LOOP_ROW * DST_COLS * SIZE * 2
    srcSize = SINGLE_LOOP_ROW * VALID_COL * SIZE * 2
    pto.TASSIGN(sort32DstTile[0], baseAddr)
    pto.TASSIGN(sort32DstTile[1], baseAddr + sort32DstSize // 2)
    pto.TASSIGN(mrgDstTile[0], baseAddr + sort32DstSize)
    pto.TASSIGN(mrgDstTile[1], baseAddr + sort32DstSize + sort32DstSize // 2)
    pto.TASSIGN(indexTile, baseAddr + sort32DstSize * 2)
    tmpAddr = baseAddr + sort32DstSize * 2 + VALID_COL * 4
    nextTmpAddr = baseAddr + sort32DstSize * 2 + VALID_COL * 4 * 3
    curAddr = sort32DstSize * 2 + VALID_COL * 4 * 5
    pto.TASSIGN(dTile[0], curAddr)
    pto.TASSIGN(dTile[1], curAddr + SINGLE_LOOP_ROW * TOPK * SIZE)
    pto.TASSIGN(iTile[0], curAddr + SINGLE_LOOP_ROW * TOPK * SIZE * 2)
    pto.TASSIGN(iTile[1], curAddr + SINGLE_LOOP_ROW * TOPK * SIZE * 2 + SINGLE_LOOP_ROW * TOPK * 4)
    pto.TASSIGN(srcTile[0], baseAddr + sort32DstSize * 3 + VALID_COL * 4 * 5)
    pto.TASSIGN(srcTile[1], baseAddr + sort32DstSize * 3 + VALID_COL * 4 * 5 + srcSize // 2)
    return tmpAddr, nextTmpAddr


def topk(out, index, src, inIdx):
    """out: __gm__ float*, index: __gm__ uint32_t*, src: __gm__ float*, inIdx: __gm__ uint32_t* (one core)."""
    idxGlobal = IndexGlobalData(inIdx)
    indexTile = IndexTileData()
    sort32DstTile = [DstTileData() for _ in range(BUFFER_NUM)]
    srcTile = [SrcTileData() for _ in range(BUFFER_NUM)]
    mrgDstTile = [DstTileData() for _ in range(BUFFER_NUM)]
    dTile = [DstDataTileData() for _ in range(BUFFER_NUM)]
    iTile = [DstIndexTileData() for _ in range(BUFFER_NUM)]
    tmpAddr, nextTmpAddr = InitBuffers(0x0, sort32DstTile, mrgDstTile, srcTile, indexTile, dTile, iTile)
    pto.TLOAD(indexTile, idxGlobal)
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE2, pto.EVENT_ID0)     # reverse
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE2, pto.EVENT_ID1)     # reverse
    loopNum = VALID_ROW // SINGLE_LOOP_ROW
    for i in range(0, loopNum, 2):
        ProcessIteration(out, src, index, i, tmpAddr, nextTmpAddr, sort32DstTile, srcTile, indexTile, mrgDstTile,
                         dTile, iTile)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE2, pto.EVENT_ID0)    # reverse
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE2, pto.EVENT_ID1)    # reverse


def golden(src: np.ndarray):
    """The vendor's gen_data.py: per row, lexsort by (-value, index), the first TOPK."""
    rows = src.reshape(VALID_ROW, COLS)[:, :VALID_COL]
    idx = np.arange(VALID_COL, dtype=np.uint32)
    order = [np.lexsort((idx, -r))[:TOPK] for r in rows]
    return np.stack([r[o] for r, o in zip(rows, order)]), np.stack(order).astype(np.uint32)


FUZZ = dict(
    inputs={"src": pto.fuzz.values(VALID_ROW * COLS, T, gen="small")},       # 0 .. 15: many ties
    outputs={"out": (VALID_ROW * TOPK, T), "index": (VALID_ROW * TOPK, pto.uint32)},
    fixed={"inIdx": np.arange(VALID_COL, dtype=np.uint32)},
    pair="a2a3:a5",
)
