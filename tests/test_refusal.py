"""The rule's refusal (autograder/shipped/refusal.py), in a fresh Python as a learner kernel starts it.

Every route to a forbidden built-in that the issue lists or a learner could take (the public op, its
variants through torch.ops, the Python composites, a stash made before the rule was armed, a closure,
a class attribute, inference mode, a new process) refuses while its family is armed; the other
families and everything after disarm run as before, with the same values. No kernel runs here: the
catalogue (tests/test_catalogue.py) grades the same routes end to end.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from autograder import paths

PROBE = textwrap.dedent(
    r"""
    import json, sys, warnings, multiprocessing, subprocess
    import torch, torch.nn as nn, torch.nn.functional as F
    warnings.simplefilter("ignore")
    exec(open(sys.argv[1]).read(), {"__wb_startup__": True})
    control = sys.modules["_wb_refusal"].claim()
    second = sys.modules.get("_wb_refusal")
    torch.manual_seed(0)
    q = torch.randn(2, 3, 8)
    x = torch.randn(3, 8)
    p = nn.Parameter(torch.randn(4)); p.grad = torch.randn(4)
    mha = nn.MultiheadAttention(8, 2, batch_first=True).eval()
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).eval()
    stash_sdpa, stash_ln = F.scaled_dot_product_attention, F.layer_norm  # taken before the rule is armed

    class Box:
        attend = staticmethod(F.scaled_dot_product_attention)

    def closure():
        return lambda: stash_sdpa(q, q, q)

    def flex():
        from torch.nn.attention.flex_attention import flex_attention
        return flex_attention(q[None], q[None], q[None])

    def flex_hop():
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention_hop
        t = q[None].detach()
        blocks = create_block_mask(lambda b, h, i, j: i >= j, 1, None, 3, 3, device="cpu").as_tuple()
        return flex_attention_hop(t, t, t, lambda s, b, h, i, j: s, blocks, 0.5, {})

    def quantizable():
        from torch.ao.nn.quantizable import MultiheadAttention
        return MultiheadAttention(8, 2, batch_first=True)(q, q, q)

    def nested_layer_norm():
        with torch.inference_mode():
            nt = torch.nested.as_nested_tensor([x.reshape(-1, 8)])
            return torch.native_layer_norm(nt, [8], torch.ones(8), torch.zeros(8), 1e-5)

    def inference():
        with torch.inference_mode():
            t = torch.randn(2, 3, 8)
            return F.scaled_dot_product_attention(t, t, t)

    def adamw(**kw):
        w = nn.Parameter(p.detach().clone()); w.grad = p.grad.clone()
        torch.optim.AdamW([w], **kw).step()
        return w

    def functional_adamw():
        w = p.detach().clone()
        from torch.optim.adamw import adamw as functional

        functional([w], [p.grad.clone()], [torch.zeros(4)], [torch.zeros(4)], [],
                                [torch.tensor(0.0)], amsgrad=False, beta1=0.9, beta2=0.999, lr=0.1,
                                weight_decay=0.01, eps=1e-8, maximize=False)
        return w

    def clip(fn):
        w = nn.Parameter(p.detach().clone()); w.grad = p.grad.clone()
        return fn([w], 1.0)

    ROUTES = {
        "attention": {
            "F.scaled_dot_product_attention": lambda: F.scaled_dot_product_attention(q, q, q),
            "torch.ops.aten.scaled_dot_product_attention": lambda: torch.ops.aten.scaled_dot_product_attention(q, q, q),
            "torch.ops.aten._scaled_dot_product_attention_math": lambda: torch.ops.aten._scaled_dot_product_attention_math(q, q, q),
            "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu": lambda: torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q[None], q[None], q[None]),
            "torch._C._nn.scaled_dot_product_attention": lambda: torch._C._nn.scaled_dot_product_attention(q, q, q),
            "stashed before arming": lambda: stash_sdpa(q, q, q),
            "class attribute": lambda: Box.attend(q, q, q),
            "closure": lambda: closure()(),
            "inference mode": inference,
            "nn.MultiheadAttention": lambda: mha(q, q, q),
            "nn.MultiheadAttention need_weights=False": lambda: mha(q, q, q, need_weights=False),
            "F.multi_head_attention_forward": lambda: F.multi_head_attention_forward(
                q.transpose(0, 1), q.transpose(0, 1), q.transpose(0, 1), 8, 2, mha.in_proj_weight,
                mha.in_proj_bias, None, None, False, 0.0, mha.out_proj.weight, mha.out_proj.bias),
            "nn.TransformerEncoderLayer": lambda: layer(q),
            "nn.TransformerEncoderLayer, grad": lambda: layer.train()(q.clone().requires_grad_()),
            "flex_attention": flex,
            "flex_attention_hop (red team)": flex_hop,
            "vmap(F.scaled_dot_product_attention) (red team)": lambda: torch.vmap(
                lambda t: F.scaled_dot_product_attention(t, t, t))(q[None].expand(2, 2, 3, 8)),
            "torch.func.vmap of the math op (red team)": lambda: torch.func.vmap(
                lambda t: torch.ops.aten._scaled_dot_product_attention_math(t, t, t))(q[None].expand(2, 2, 3, 8)),
            "quantizable MultiheadAttention": quantizable,
        },
        "norm": {  # one family: each normalisation computes the others (rms_norm of x - mean is LayerNorm)
            "F.layer_norm": lambda: F.layer_norm(x, (8,)),
            "nn.LayerNorm": lambda: nn.LayerNorm(8)(x),
            "torch.layer_norm": lambda: torch.layer_norm(x, (8,)),
            "torch.native_layer_norm": lambda: torch.native_layer_norm(x, (8,), None, None, 1e-5),
            "stashed before arming": lambda: stash_ln(x, (8,)),
            "F.group_norm": lambda: F.group_norm(x, 2),
            "F.batch_norm": lambda: F.batch_norm(x, None, None, training=True),
            "F.instance_norm": lambda: F.instance_norm(x[None]),
            "vmap(F.layer_norm) (red team)": lambda: torch.vmap(lambda r: F.layer_norm(r, (8,)))(x),
            "nested tensor, inference mode (red team)": nested_layer_norm,
            "F.rms_norm": lambda: F.rms_norm(x, (8,)),
            "nn.RMSNorm": lambda: nn.RMSNorm(8)(x),
            "torch.rms_norm": lambda: torch.rms_norm(x, (8,)),
            "vmap(F.rms_norm) (red team)": lambda: torch.vmap(lambda r: F.rms_norm(r, (8,)))(x),
        },
        "adam": {
            "torch.optim.AdamW": lambda: adamw(),
            "torch.optim.AdamW foreach": lambda: adamw(foreach=True),
            "torch.optim.AdamW fused": lambda: adamw(fused=True),
            "torch.optim.Adam decoupled": lambda: clip(lambda ps, _: torch.optim.Adam(ps, decoupled_weight_decay=True).step()),
            "torch.optim.adamw.adamw (functional)": functional_adamw,
            "torch._fused_adamw_": lambda: torch._fused_adamw_([p.detach().clone()], [p.grad.clone()], [torch.zeros(4)],
                [torch.zeros(4)], [], [torch.tensor(1.0)], lr=0.1, beta1=0.9, beta2=0.999, weight_decay=0.01,
                eps=1e-8, amsgrad=False, maximize=False),
        },
        "clip": {
            "torch.nn.utils.clip_grad_norm_": lambda: clip(torch.nn.utils.clip_grad_norm_),
            "torch.nn.utils.clip_grad.clip_grad_norm_": lambda: clip(torch.nn.utils.clip_grad.clip_grad_norm_),
            "torch.nn.utils.clip_grad_norm": lambda: clip(torch.nn.utils.clip_grad_norm),
            "torch.nn.utils.get_total_norm": lambda: torch.nn.utils.get_total_norm([p.grad]),
            "torch.nn.utils.clip_grads_with_norm_": lambda: clip(lambda ps, m: torch.nn.utils.clip_grads_with_norm_(ps, m, torch.tensor(2.0))),
        },
        "process": {
            "subprocess.run": lambda: subprocess.run([sys.executable, "-c", "pass"], check=True),
            "multiprocessing.Process": lambda: multiprocessing.get_context("spawn").Process(target=print).start(),
        },
    }
    FAMILY_NAME = {"attention": "scaled_dot_product_attention", "norm": "RMSNorm",
                   "adam": "AdamW", "clip": "clip_grad_norm_", "process": None}

    def outcome(fn):
        try:
            out = fn()
        except Exception as exc:
            return "refused" if type(exc).__name__ == "Refused" else f"error {type(exc).__name__}: {exc}"[:200]
        return "ran"

    report = {"second_claim": second is not None, "runs": {}}
    for family, routes in ROUTES.items():
        if FAMILY_NAME[family] is None:
            continue
        control.arm([FAMILY_NAME[family]])
        armed = {name: outcome(fn) for name, fn in routes.items()}
        others = {f"{other}: {name}": outcome(fn) for other, rs in ROUTES.items() if other not in (family, "process")
                  for name, fn in rs.items()}
        processes = {name: outcome(fn) for name, fn in ROUTES["process"].items()}
        control.disarm()
        report["runs"][family] = {"armed": armed, "others": others, "processes": processes,
                                  "refused": control.drain(),
                                  "after": {name: outcome(fn) for name, fn in routes.items()}}
    report["same_after"] = bool(torch.equal(F.scaled_dot_product_attention(q, q, q), stash_sdpa(q, q, q)))
    print(json.dumps(report))
    """
)


@pytest.fixture(scope="module")
def report():
    """The probe's findings, from a Python that ran refusal.py as a kernel does (the notebook's imports first)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(paths.SHIPPED / "refusal.py")],
        capture_output=True,
        text=True,
        timeout=300,
        env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


FAMILIES = ["attention", "norm", "adam", "clip"]


@pytest.mark.parametrize("family", FAMILIES)
def test_every_route_refuses_while_its_family_is_armed(report, family):
    armed = report["runs"][family]["armed"]
    assert {name: how for name, how in armed.items() if how != "refused"} == {}
    assert report["runs"][family]["refused"], "each refusal is recorded for the grader"


@pytest.mark.parametrize("family", FAMILIES)
def test_no_new_process_starts_while_a_rule_is_armed(report, family):
    """A new process would start without the refusal: none may start during a rule's calls."""
    assert set(report["runs"][family]["processes"].values()) == {"refused"}


@pytest.mark.parametrize("family", FAMILIES)
def test_the_other_families_and_everything_after_disarm_run(report, family):
    run = report["runs"][family]
    spans = {"attention: nn.TransformerEncoderLayer", "attention: nn.TransformerEncoderLayer, grad"}  # LayerNorm inside
    expected = {n: "refused" if family == "norm" and n in spans else "ran" for n in run["others"]}
    assert {n: how for n, how in run["others"].items() if how != expected[n]} == {}
    assert {n: how for n, how in run["after"].items() if how != "ran"} == {}


def test_the_controller_is_claimed_once_and_the_built_ins_are_unchanged_after(report):
    assert report["second_claim"] is False  # claiming removes it: a learner's second claim finds nothing
    assert report["same_after"]
