"""make study's figures from a full grid's summary: every series drawn.

The quick grid draws at most eight curves per figure; the full grid draws
nine contexts and five reservations in its pending figure, and compare's
step plot thinned each further curve until the ninth had no width and the
tenth stopped matplotlib (found by a partial report of the full run)."""
import matplotlib

import study

matplotlib.use("Agg")


def _summary():
    ctxs = ["control"] + study.CMP_CONTEXTS
    compare = [{"context": c, "cyc_hist": {"0": 900, "50": 100 + i},
                "pending_hist": {"12": 500, "14": 10 + i} if c != "control" else None}
               for i, c in enumerate(ctxs)]
    transfer = [{"version": v, "pending_hist": {"12": 300, str(800 * (i + 1)): 3}}
                for i, (v, _, _) in enumerate(study.VERSIONS) if v.startswith("RES")]
    return {"k": {"compare": compare, "transfer": transfer, "resmap": [], "phase_call": None}}


def test_every_curve_has_a_width(tmp_path, monkeypatch):
    import matplotlib.figure
    widths = {}
    real = matplotlib.figure.Figure.savefig

    def spy(fig, fname, *a, **kw):
        widths[str(fname).rsplit("/", 1)[-1]] = [
            ln.get_linewidth() for ax in fig.axes for ln in ax.get_lines()]
        return real(fig, fname, *a, **kw)
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", spy)
    figs = study.plots(_summary(), tmp_path)
    assert "pending-k.png" in figs and "cyclictest-k.png" in figs
    for name in figs:
        assert (tmp_path / name).stat().st_size > 1000
    # 8 contexts and 5 reservations, and the ring's limit line
    assert len(widths["pending-k.png"]) == len(study.CMP_CONTEXTS) + 5 + 1
    assert len(widths["cyclictest-k.png"]) == len(study.CMP_CONTEXTS) + 1
    assert all(w > 0.5 for ws in widths.values() for w in ws), widths
