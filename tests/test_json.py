"""The JSON documents are a versioned contract (docs/json.md): each names its schema, carries
its configuration as structured fields that rebuild it, and names every fact and engine."""
from __future__ import annotations

import json

from ptogpu.cli import main
from ptogpu.fuzz.compare import campaign, config_from_settings
from ptogpu.execution.config import FuzzConfig


def _run(argv, capsys):
    rc = main(argv)
    return rc, json.loads(capsys.readouterr().out)


def test_fuzz_json_names_its_schema_and_rebuilds_its_configuration(capsys):
    rc, doc = _run(["fuzz", "--pair", "cpu@numpy:a5@numpy", "--mode", "row", "--shape", "4x16",
                    "--oob", "Undefined", "--table-size", "128", "--quirk", "npu_tload_filler=off",
                    "-n", "300", "--seed", "7", "--json", "--no-shrink"], capsys)
    assert doc["schema"] == "ptogpu.fuzz.run/2" and rc in (0, 1)
    c = doc["campaigns"][0]
    assert c["schema"] == "ptogpu.fuzz.report/2"
    assert c["references"] == {k: {"reference": "none: this side is the numpy semantics itself", "mismatched": 0,
                                   "checked": 0}
                               for k in ("a", "b")}
    assert c["sides"] == {"a": {"target": "cpu", "exec": "auto", "backend": "numpy"},
                          "b": {"target": "a5", "exec": "auto", "backend": "numpy"}}
    assert (c["start"], c["n"], c["seed"], c["generator"]) == (0, 300, 7, "mixed")
    s = c["settings"]
    assert (s["mode"], s["oob"], s["rows"], s["cols"], s["table_shape"]) == ("row", "undefined", 4, 16,
                                                                           [1, 1, 1, 8, 16])
    assert s["quirks"] == {"npu_tload_filler": False}
    cfg = config_from_settings(s)
    assert cfg == FuzzConfig(mode="row", rows=4, cols=16, oob="undefined", table_size=128,
                             quirks=(("npu_tload_filler", False),),
                             table_shape=(1, 1, 1, 8, 16), table_stride=(128, 128, 128, 16, 1))
    # the same run from the JSON alone gives the same classes
    again = campaign(cfg, "cpu@numpy", "a5@numpy", c["n"], seed=c["seed"], start=c["start"],
                     generator=c["generator"], shrink=False).to_json()
    assert [(k["class"], k["count"], k["first"]) for k in again["classes"]] == \
           [(k["class"], k["count"], k["first"]) for k in c["classes"]]
    assert c["classes"] and all(isinstance(k["facts"], list) and k["facts"] and "mask" not in k
                                for k in c["classes"])
    assert "fault vs value" in {f for k in c["classes"] for f in k["facts"]}
    assert set(c["executed"]) == {"a", "b"}


def test_targets_json(capsys):
    rc, doc = _run(["targets", "--json"], capsys)
    assert rc == 0 and doc["schema"] == "ptogpu.targets/1"
    assert set(doc["targets"]) == {"cpu", "a2a3", "a5"}
    assert doc["targets"]["a5"]["ub_bytes"] == 256 * 1024 and doc["targets"]["a2a3"]["mgather"]["index_bits"] == 32
    assert doc["targets"]["cpu"]["mgather"]["index_bits"] == 64


def test_simt_show_json(capsys):
    rc, doc = _run(["simt", "show", "--mode", "elem", "--rows", "2", "--cols", "40", "--what", "warp,lane",
                    "--json"], capsys)
    assert rc == 0 and doc["schema"] == "ptogpu.simt.show/1"
    assert doc["metrics"]["warps"] == 3 and doc["metrics"]["threads"] == 96
    w, lane = doc["grids"]["warp"], doc["grids"]["lane"]
    assert len(w) == 2 and len(w[0]) == 40
    assert w[1][0] == 1 and lane[1][0] == 8       # element 40: warp 1, lane 8


def test_info_json(capsys):
    rc, doc = _run(["info", "--json"], capsys)
    assert rc == 0 and doc["schema"] == "ptogpu.info/1"
