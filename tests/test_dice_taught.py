"""The taught-face network (vision/dice/taught.py) and how the reader uses its vectors."""

from __future__ import annotations

import json

import numpy as np
import pytest

import vision.dice.reader as reader_module
import vision.dice.taught as taught
from vision.dice import DiceReader, Profile, netrun
from vision.dice.netrun import Net, OnnxNet, OrtNet, meta_of
from vision.dice.reader import (
    AGREED_EDGE_LEAD,
    AGREED_LIKENESS,
    AGREED_VECTOR_LEAD,
    TAUGHT_CLEAN_CONFIDENCE,
    UNALIKE_CLEAN,
    VECTOR_LEAD_SCALE,
    VECTOR_LIKENESS,
    VECTOR_SURE,
    _agreement,
)
from vision.dice.render import KINDS, SYMBOLS, TrayStyle, empty_tray, single_die

STYLE = TrayStyle(tray_bgr=(96, 110, 112), perspective=2.0, seed=3, tray_seed=11)


def test_the_network_sees_a_crops_middle_at_zero_mean_and_unit_spread():
    rng = np.random.default_rng(0)
    crop = rng.uniform(0, 255, (64, 64))
    x = taught.embed_input(crop)
    assert x.shape == (taught.EMBED_SIDE, taught.EMBED_SIDE) and x.dtype == np.float32
    middle = crop[8:56, 8:56]
    assert np.allclose(x, (middle - middle.mean()) / (middle.std() + taught.SPREAD_FLOOR),
                       atol=1e-4)
    # a blank face is not its noise scaled up: a flat crop is all zeros
    assert not taught.embed_input(np.full((64, 64), 200.0)).any()


def test_the_shipped_network_runs_the_same_from_its_onnx_twin_and_its_weights():
    x = np.random.default_rng(1).normal(size=(5, 1, 48, 48)).astype(np.float32)
    for runtime, kind in (("opencv", OnnxNet), ("onnxruntime", OrtNet)):
        onnx = netrun.load(taught.MODEL, classic=True, runtime=runtime, int8=False)
        assert isinstance(onnx, kind)
        assert np.allclose(onnx(x), Net.load(taught.MODEL)(x), atol=1e-4)


def test_the_shipped_network_says_where_it_comes_from():
    meta = meta_of(taught.MODEL)
    # the first, second and fourth renderers; never the third or the fifth, which measure
    assert meta["renderers"] == {"a": "bench/tray_renderer.py", "b": "bench/tray_renderer_b.py",
                                 "d": "bench/tray_renderer_d.py"}
    assert not any(r in str(meta) for r in ("tray_renderer_c", "tray_renderer_e"))
    # never the towers bench/independent_dice_bench.py measures each renderer on
    assert not set(taught.seeds_of(meta["seeds"])) & taught.MEASURED_SEEDS
    assert not set(taught.seeds_of(meta["b_seeds"])) & taught.B_MEASURED_SEEDS
    assert not set(taught.seeds_of(meta["d_seeds"])) & taught.D_MEASURED_SEEDS
    assert taught.seeds_of("8600-8602, 8700") == [8600, 8601, 8602, 8700]
    with pytest.raises(ValueError, match="seeds 8400, 8401: the benchmark measures on them"):
        taught.seeds_of("8390-8401")
    # the fourth renderer's towers are measured from 9100: learning from them is refused too
    assert taught.seeds_of("9038-9039", taught.D_MEASURED_SEEDS) == [9038, 9039]
    with pytest.raises(ValueError, match="seeds 9100: the benchmark measures on them"):
        taught.seeds_of("9099-9100", taught.D_MEASURED_SEEDS)


def test_vectors_are_unit_long_and_alike_for_one_face_turned():
    net = taught.shipped()
    assert net is not None
    frame, _ = single_die("kotd", "HEART", "black", 4, STYLE)
    p = Profile()
    p.add_background(empty_tray(STYLE, seed=0))
    p.add_example("kotd", "HEART", frame)
    crop = p.kinds["kotd"].examples["HEART"][0]
    v = net.embed([crop, np.rot90(crop), np.rot90(crop, 2)])
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert (v[1:] @ v[0] > VECTOR_LIKENESS).all()


@pytest.fixture(scope="module")
def symbols_profile() -> Profile:
    p = Profile()
    p.add_background(empty_tray(STYLE, seed=0))
    for i, face in enumerate(SYMBOLS):
        for j in range(3):
            frame, _ = single_die("kotd", face, KINDS["kotd"].colours[0], 30 + 7 * i + j, STYLE)
            p.add_example("kotd", face, frame)
    return p


def test_each_symbol_is_nearest_to_its_own_taught_pictures(symbols_profile):
    # a symbol die thrown again (another turn, another place) is most like the pictures of
    # its own face, by far: what the reader reads clean
    reader = DiceReader(symbols_profile)
    for i, face in enumerate(SYMBOLS):
        frame, _ = single_die("kotd", face, KINDS["kotd"].colours[0], 500 + i, STYLE)
        blobs, _ = reader.blobs(frame)
        (ranked,) = reader._vector_ranks(reader._kind_crops(blobs, [0]), [0]).values()
        (s1, kind, best), (s2, _, _) = ranked[:2]
        assert (kind, best) == ("kotd", face)
        assert s1 >= VECTOR_LIKENESS and s1 - s2 >= VECTOR_SURE


def test_the_ready_file_keeps_the_vectors_and_never_stale_ones(symbols_profile, tmp_path,
                                                               monkeypatch):
    path = symbols_profile.save(tmp_path / "tower.yaml")
    worked_out = symbols_profile.kinds["kotd"].vectors()
    assert worked_out is not None and worked_out.shape == (18, taught.EMBED_DIM)
    net = taught.shipped_for_pictures()  # (the float network: the pictures' vectors exact)
    calls = []
    monkeypatch.setattr(net, "embed", lambda crops: calls.append(len(crops)) or
                        taught.TaughtNet.embed(net, crops))
    m = Profile.load(path).kinds["kotd"]
    assert np.allclose(m.vectors(), worked_out, atol=1e-5) and calls == []  # read ready
    # vectors of another network are worked out again
    ready = path.with_suffix(".d") / "examples.npz"
    with np.load(ready) as z:
        arrays = {k: z[k] for k in z.files}
    np.savez(ready, **{**arrays, "vectors_model": np.array("another network")})
    m = Profile.load(path).kinds["kotd"]
    assert np.allclose(m.vectors(), worked_out, atol=1e-5) and calls == [18]
    # an example taught after the load is in them
    frame, _ = single_die("kotd", "FAME", KINDS["kotd"].colours[0], 99, STYLE)
    p = Profile.load(path)
    p.add_example("kotd", "FAME", frame)
    assert len(p.kinds["kotd"].vectors()) == 19


def test_without_the_network_the_taught_faces_are_read_by_their_edges(symbols_profile,
                                                                       monkeypatch):
    monkeypatch.setattr(reader_module, "_taught_net", lambda: None)
    reader = DiceReader(symbols_profile)
    frame, _ = single_die("kotd", "CLAW", KINDS["kotd"].colours[0], 321, STYLE)
    blobs, _ = reader.blobs(frame)
    assert reader._vector_ranks(reader._kind_crops(blobs, [0]), [0]) == {}
    (r,) = reader.read(frame)
    assert (r.kind, r.face, r.status) == ("kotd", "CLAW", "clean")


SURE = [(0.95, "kotd", "HEART"), (0.95 - 2 * VECTOR_SURE, "kotd", "CLAW"),
        (0.5, "d12", "7")]


def test_the_vectors_read_a_face_clean_only_when_sure():
    by_vectors = DiceReader._by_vectors
    kind, face, conf, likely = by_vectors(SURE, None)
    assert (kind, face, likely) == ("kotd", "HEART", ("HEART", "CLAW")) and conf == 1.0
    # a small lead, or a die little like any taught face: not clean
    close = [SURE[0], (0.95 - VECTOR_SURE / 2, "kotd", "CLAW")]
    assert by_vectors(close, None)[2] < TAUGHT_CLEAN_CONFIDENCE
    unlike = [(VECTOR_LIKENESS - 0.01, "kotd", "HEART"), (0.1, "kotd", "CLAW")]
    assert by_vectors(unlike, None)[2] < TAUGHT_CLEAN_CONFIDENCE
    # a lead just short of VECTOR_SURE is not sure; one just past it is, and at least as
    # sure as the earlier network's scale makes it (0.95 from 1.5 x VECTOR_LEAD_SCALE)
    assert VECTOR_SURE > VECTOR_LEAD_SCALE
    short = [SURE[0], (0.95 - VECTOR_SURE + 0.005, "kotd", "CLAW")]
    assert by_vectors(short, None)[2] < TAUGHT_CLEAN_CONFIDENCE
    past = [SURE[0], (0.95 - VECTOR_SURE - 0.005, "kotd", "CLAW")]
    assert by_vectors(past, None)[2] >= TAUGHT_CLEAN_CONFIDENCE + (
        1 - TAUGHT_CLEAN_CONFIDENCE) * (VECTOR_SURE / VECTOR_LEAD_SCALE - 1) - 1e-9
    # where they are unsure, an edge reading of the same face stands, of another does not
    edges = ("kotd", "HEART", 0.95, ("HEART",))
    assert by_vectors(close, edges) == edges
    other = ("kotd", "FAME", 0.95, ("FAME",))
    assert by_vectors(close, other)[:2] == ("kotd", "FAME")
    assert by_vectors(close, other)[2] < TAUGHT_CLEAN_CONFIDENCE
    # ... unless the vectors like its face nearly as well as their best: faces they cannot
    # tell apart turned (a D12's 6 and 9), which the edges can
    six_nine = [(0.95, "d12", "9"), (0.95 - VECTOR_SURE / 2, "d12", "6"), (0.7, "d12", "8")]
    six = ("d12", "6", 0.95, ("6", "9"))
    assert by_vectors(six_nine, six) == six
    # ... but not one the edges were sure of only with help (the upright comparison or a
    # closer look): that stands only where the vectors like its face best as well
    assert by_vectors(six_nine, six, edges_alone=False)[:2] == ("d12", "6")
    assert by_vectors(six_nine, six, edges_alone=False)[2] < TAUGHT_CLEAN_CONFIDENCE
    nine = ("d12", "9", 0.95, ("9", "6"))
    assert by_vectors(six_nine, nine, edges_alone=False) == nine
    # without vectors (no network, no taught kind): the edges' reading as it was
    assert by_vectors(None, other) == other and by_vectors([], other) == other


def test_a_face_the_vectors_and_the_edges_both_name_first_is_settled():
    # the vectors unsure of HEART (the die little like any taught face)...
    vectors = [(AGREED_LIKENESS + 0.02, "kotd", "HEART"),
               (AGREED_LIKENESS + 0.02 - AGREED_VECTOR_LEAD - 0.01, "kotd", "CLAW"),
               (0.3, "d12", "7")]
    unsure = DiceReader._by_vectors(vectors, None)
    assert unsure[:2] == ("kotd", "HEART") and unsure[2] < TAUGHT_CLEAN_CONFIDENCE
    # ... and the edges, unsure too, lead with HEART: the two agree, the reading is settled
    # (its kind stands; its face is offered first, not clean: the test above, AGREED_CLEAN)
    edges = [(0.8, "kotd", "HEART"), (0.8 - AGREED_EDGE_LEAD - 0.005, "kotd", "ENERGY")]

    def settled(best, vectors=vectors, edges=edges):
        best = [best]
        _agreement(best, [0], {0: vectors}, {0: edges})
        return best[0]

    assert settled(unsure) == ("kotd", "HEART", TAUGHT_CLEAN_CONFIDENCE, unsure[3])
    # the edges leading with another face, or with HEART by less than AGREED_EDGE_LEAD: unsure
    other = [(0.8, "kotd", "ENERGY"), (0.7, "kotd", "HEART")]
    assert settled(unsure, edges=other) == unsure
    close = [(0.8, "kotd", "HEART"), (0.8 - AGREED_EDGE_LEAD + 0.005, "kotd", "ENERGY")]
    assert settled(unsure, edges=close) == unsure
    # the vectors' lead short of AGREED_VECTOR_LEAD, or the die less like HEART than
    # AGREED_LIKENESS: unsure, whatever the edges say
    near = [vectors[0], (vectors[0][0] - AGREED_VECTOR_LEAD + 0.005, "kotd", "CLAW")]
    assert settled(unsure, vectors=near) == unsure
    unlike = [(AGREED_LIKENESS - 0.01, "kotd", "HEART"), (0.3, "kotd", "CLAW")]
    assert settled(unsure, vectors=unlike) == unsure
    # it settles a reading, it changes none: pips counted (a pip die the two took for a
    # symbol die), a reading of another face, one settled already
    pips = ("d6pips", "5", 0.7, ("5",))
    assert settled(pips) == pips
    assert settled(("kotd", "CLAW", 0.5, ("CLAW",))) == ("kotd", "CLAW", 0.5, ("CLAW",))
    sure = ("kotd", "HEART", 0.97, ("HEART",))
    assert settled(sure) == sure
    # the face is made as sure as the reader says the two agreeing make that kind's faces
    # (DiceReader._agreed_sureness; UNALIKE_CLEAN is what the reader before said for a kind
    # whose taught pictures are unlike each other), not more
    unalike = [unsure]
    _agreement(unalike, [0], {0: vectors}, {0: edges}, lambda kind: UNALIKE_CLEAN)
    assert unalike[0][:3] == ("kotd", "HEART", UNALIKE_CLEAN)
    between = [("kotd", "HEART", 0.93, ("HEART",))]
    _agreement(between, [0], {0: vectors}, {0: edges}, lambda kind: UNALIKE_CLEAN)
    assert between[0][2] == UNALIKE_CLEAN


def test_a_read_on_the_command_line_loads_the_vectors_ready(symbols_profile, tmp_path,
                                                             monkeypatch, capsys):
    import cv2

    from vision.cli import main
    path = symbols_profile.save(tmp_path / "tower.yaml")
    frame, _ = single_die("kotd", "ENERGY", KINDS["kotd"].colours[0], 654, STYLE)
    img = tmp_path / "throw.png"
    cv2.imwrite(str(img), frame)
    net, pictures_net = taught.shipped(), taught.shipped_for_pictures()
    assert net is not pictures_net  # the 8-bit twin reads, the float network taught
    sizes, pictures = [], []
    monkeypatch.setattr(net, "embed", lambda crops: sizes.append(len(crops)) or
                        taught.TaughtNet.embed(net, crops))
    monkeypatch.setattr(pictures_net, "embed", lambda crops: pictures.append(len(crops)) or
                        taught.TaughtNet.embed(pictures_net, crops))
    assert main(["dice", "read", "--profile", str(path), "--json", str(img)]) == 0
    (die,) = json.loads(capsys.readouterr().out)["dice"]
    assert (die["kind"], die["face"], die["status"]) == ("kotd", "ENERGY", "clean")
    # the throw's die alone: the taught pictures' vectors were ready
    assert sizes == [1] and pictures == []


@pytest.fixture
def damaged_network(tmp_path, monkeypatch):
    """The taught-face network's file damaged (no ONNX twin beside it)."""
    bad = tmp_path / "models" / "taught.npz"
    bad.parent.mkdir()
    bad.write_bytes(taught.MODEL.read_bytes()[:5000])
    monkeypatch.setattr(taught, "MODEL", bad)
    taught._loaded.cache_clear()
    taught.model_id.cache_clear()
    yield bad
    taught._loaded.cache_clear()
    taught.model_id.cache_clear()


def test_a_damaged_network_is_named_and_the_tower_still_reads(symbols_profile, tmp_path,
                                                              damaged_network, capsys):
    """A model file that cannot be used is said on the command line, by name, with what the
    reader does without it; the dice are still read (by their edges)."""
    import cv2

    from vision.cli import main
    path = symbols_profile.save(tmp_path / "tower.yaml")
    frame, _ = single_die("kotd", "CLAW", KINDS["kotd"].colours[0], 321, STYLE)
    img = tmp_path / "throw.png"
    cv2.imwrite(str(img), frame)
    assert taught.shipped() is None and str(damaged_network) in taught.problem()
    assert main(["dice", "read", "--profile", str(path), "--json", str(img)]) == 0
    out = capsys.readouterr()
    (die,) = json.loads(out.out)["dice"]
    assert (die["kind"], die["face"], die["status"]) == ("kotd", "CLAW", "clean")
    (warning,) = out.err.strip().splitlines()
    assert warning.startswith("warning: ") and str(damaged_network) in warning
    assert "edges alone" in warning


def test_with_its_networks_the_reader_says_nothing(symbols_profile, tmp_path, capsys):
    import cv2

    from vision.cli import main
    path = symbols_profile.save(tmp_path / "tower.yaml")
    frame, _ = single_die("kotd", "CLAW", KINDS["kotd"].colours[0], 321, STYLE)
    img = tmp_path / "throw.png"
    cv2.imwrite(str(img), frame)
    assert reader_module.network_problems() == []
    assert main(["dice", "read", "--profile", str(path), "--json", str(img)]) == 0
    assert capsys.readouterr().err == ""


def test_a_kind_whose_taught_pictures_of_a_face_are_unlike_asks_more_to_be_clean(
        symbols_profile, monkeypatch):
    # a tower whose camera shows a face differently from picture to picture (a dark die's
    # shadow or side taken for its top face) reads that kind less surely: on independent
    # renders its faces read 0.90 to 0.95 sure were right 50 times in 56
    m = symbols_profile.kinds["kotd"]
    alike = m.pictures_alike()
    bank, faces = m.vectors(), m.example_crops()[0]
    pairs = [float(bank[i] @ bank[j]) for i in range(len(faces)) for j in range(i + 1, len(faces))
             if faces[i] == faces[j]]
    assert len(pairs) == 3 * len(SYMBOLS) and alike == pytest.approx(np.median(pairs), abs=1e-6)
    # this project's renders: the pictures of a face are alike, and the usual bar stands
    assert alike >= reader_module.PICTURES_ALIKE
    reader = DiceReader(symbols_profile)
    assert reader._taught_clean("kotd") == TAUGHT_CLEAN_CONFIDENCE
    frame, _ = single_die("kotd", "CLAW", KINDS["kotd"].colours[0], 321, STYLE)

    def read_at(conf):
        monkeypatch.setattr(reader, "_faces", lambda *a: [("kotd", "CLAW", conf, ("CLAW",))])
        (r,) = reader.read(frame)
        return r.status, r.face

    assert read_at(0.92) == ("clean", "CLAW")
    # pictures unlike each other: 0.92 is not sure enough, 0.96 is
    monkeypatch.setattr(type(m), "pictures_alike", lambda self: 0.6)
    assert reader._taught_clean("kotd") == reader_module.UNALIKE_CLEAN
    assert read_at(0.92) == ("unreadable", None)
    assert read_at(0.96) == ("clean", "CLAW")
    # without the network (no vectors) nothing is known of it: the usual bar
    monkeypatch.undo()
    monkeypatch.setattr(type(m), "vectors", lambda self: None)
    assert m.pictures_alike() is None
    assert reader._taught_clean("kotd") == TAUGHT_CLEAN_CONFIDENCE


def test_two_comparisons_agreeing_settle_a_dies_kind_not_its_face(monkeypatch):
    # the vectors and the edges, each unsure alone, both name CLAW first: that settles the
    # die's kind (and so its colour among its kind's), and its face is offered first, but it
    # is not clean: of the dice the two made clean, 46 in 47 had the right face on the tuning
    # towers where a kind's pictures are alike (38 in 42 where they are unlike), under the 99
    # in 100 a clean face promises
    colour = KINDS["kotd"].colours[0]
    profile = Profile()
    profile.add_background(empty_tray(STYLE, seed=0))
    for i, face in enumerate(SYMBOLS):
        for j in range(3):
            shown, _ = single_die("kotd", face, colour, 30 + 7 * i + j, STYLE)
            profile.add_example("kotd", face, shown, colour=colour)
    m = profile.kinds["kotd"]
    reader = DiceReader(profile)
    frame, _ = single_die("kotd", "CLAW", colour, 321, STYLE)
    vectors = [(AGREED_LIKENESS + 0.02, "kotd", "CLAW"),
               (AGREED_LIKENESS + 0.02 - AGREED_VECTOR_LEAD - 0.01, "kotd", "HEART")]
    edges = [(0.8, "kotd", "CLAW"), (0.8 - AGREED_EDGE_LEAD - 0.005, "kotd", "ENERGY")]
    assert not reader_module._vectors_sure(vectors)
    monkeypatch.setattr(reader, "_vector_ranks", lambda crops, todo: {i: vectors for i in todo})
    monkeypatch.setattr(reader, "_gradient_ranks", lambda crops, todo: {i: edges for i in todo})
    # the comparison upright and the closer look find nothing either way
    monkeypatch.setattr(reader, "_decide", lambda cands: None)
    monkeypatch.setattr(reader, "_confirmed", lambda b, ranked: False)

    def read():
        (r,) = reader.read(frame)
        return r.status, r.face, r.kind, r.colour, r.likely[:1]

    assert reader._agreed_sureness("kotd") == TAUGHT_CLEAN_CONFIDENCE
    assert read() == ("unreadable", None, "kotd", colour, ("CLAW",))
    # the reader before (AGREED_CLEAN): clean where the kind's pictures are alike ...
    monkeypatch.setattr(reader_module, "AGREED_CLEAN", 1)
    assert read() == ("clean", "CLAW", "kotd", colour, ("CLAW",))
    # ... and not where they are unlike (AGREED_IN_UNALIKE, the thirteenth session's) ...
    monkeypatch.setattr(type(m), "pictures_alike", lambda self: 0.6)
    assert reader._taught_clean("kotd") == UNALIKE_CLEAN
    assert reader._agreed_sureness("kotd") == TAUGHT_CLEAN_CONFIDENCE < UNALIKE_CLEAN
    assert read() == ("unreadable", None, "kotd", colour, ("CLAW",))
    # ... but there too the reader before that (AGREED_IN_UNALIKE=1)
    monkeypatch.setattr(reader_module, "AGREED_IN_UNALIKE", 1)
    assert reader._agreed_sureness("kotd") == UNALIKE_CLEAN
    assert read() == ("clean", "CLAW", "kotd", colour, ("CLAW",))
    # without the flag the unalike kind's die is not clean either
    monkeypatch.setattr(reader_module, "AGREED_CLEAN", 0)
    assert read() == ("unreadable", None, "kotd", colour, ("CLAW",))
    # the agreement makes no reading less sure than it was, and names the dice it settled
    surer = [("kotd", "CLAW", 0.93, ("CLAW",))]
    assert _agreement(surer, [0], {0: vectors}, {0: edges},
                      lambda kind: TAUGHT_CLEAN_CONFIDENCE) == []
    assert surer == [("kotd", "CLAW", 0.93, ("CLAW",))]
    unsure = [("kotd", "CLAW", 0.5, ("CLAW",))]
    assert _agreement(unsure, [0], {0: vectors}, {0: edges},
                      lambda kind: TAUGHT_CLEAN_CONFIDENCE) == [0]
    assert unsure == [("kotd", "CLAW", TAUGHT_CLEAN_CONFIDENCE, ("CLAW",))]


def test_towers_to_learn_from_are_named_by_renderer_and_never_those_that_measure():
    assert taught.towers_of("a:8600-8601, b:200,c:300,d:9040") == [
        ("a", 8600), ("a", 8601), ("b", 200), ("c", 300), ("d", 9040)]
    # each renderer's measured towers are refused, named
    with pytest.raises(ValueError, match="renderer c: seeds 299: the benchmark measures"):
        taught.towers_of("c:299-300")
    with pytest.raises(ValueError, match="renderer b: seeds 150"):
        taught.towers_of("a:8600,b:150")
    with pytest.raises(ValueError, match="renderer a: seeds 8910"):
        taught.towers_of("a:8910")
    # the fifth renderer is never learned from: it measures what the others taught
    with pytest.raises(ValueError, match="'e' is not a renderer to learn from"):
        taught.towers_of("e:300")


def test_the_towers_face_classifier_learned_from_no_tower_that_measures_it():
    from vision.dice.pips import MODELS, TOWER_FACES

    meta = meta_of(MODELS / TOWER_FACES)
    # scripts/train_tower_faces.py writes the towers it learned from; none measures the reader
    learned = taught.towers_of(meta["towers"])
    assert {r for r, _ in learned} == {"a", "b", "c", "d"}
    assert "tray_renderer_e" not in str(meta)


def test_the_towers_die_finder_learned_from_no_tower_that_measures_it():
    from vision.dice.pips import MODELS, TOWER_FINDER

    meta = meta_of(MODELS / TOWER_FINDER)
    # scripts/train_tower_finder.py writes the towers it learned from; none measures the reader
    learned = taught.towers_of(meta["towers"])
    assert {r for r, _ in learned} == {"a", "b", "c", "d"}
    assert "tray_renderer_e" not in str(meta)
