"""Forbidden built-ins judged by an allow-list: every way around it is found, and honest code is not.

Each trick is an answer cell for notebook 01's real rule (every answer cell covered); the
finding must name what the trick does, not something incidental. No kernel runs here.
"""

from __future__ import annotations

import functools
from pathlib import Path

import nbformat
import pytest
from conftest import NAMES

from autograder import paths
from autograder.checks import perimeter
from autograder.checks.perimeter import stated_rules as forbidden_rules
from autograder.material import answers

CATALOGUE = Path(__file__).resolve().parent / "catalogue"
SAMPLES = Path(__file__).resolve().parent.parent / "data" / "sample_answers"


@functools.cache
def _notebook(name: str) -> nbformat.NotebookNode:
    return nbformat.read(paths.source_notebook(name), as_version=4)


@functools.cache
def rules(name: str) -> list[tuple[list[str], list[str] | None]]:
    """The rules a notebook's test cells state."""
    found = [rule for cell in _notebook(name).cells if answers.is_test(cell) for rule in forbidden_rules(cell.source)]
    return [(rule.names, rule.cells) for rule in found]


@functools.cache
def given(name: str) -> list[str]:
    """The notebook's own code cells, as the harness passes them."""
    return [c.source for c in _notebook(name).cells if c.cell_type == "code" and not answers.is_answer(c)]


RULE_01 = rules("01_scaled_dot_product_attention")[0]
RULE_03 = rules("03_multi_head_attention")[0]

ISSUE = [  # the tricks issue 28 lists
    ("private_alias", "out = torch._scaled_dot_product_attention_math(q, k, v)", "private"),
    ("private_c_binding", "fn = torch._C._nn.scaled_dot_product_attention", "torch._C"),
    (
        "pkgutil",
        "import pkgutil\nfn = pkgutil.resolve_name('torch.nn.functional:scaled_dot_product_attention')",
        "pkgutil",
    ),
    (
        "pickle",
        "import pickle\nfn = pickle.loads(b'ctorch.nn.functional\\nscaled_dot_product_attention\\n.')",
        "pickle",
    ),
    ("eval_alias", "e = eval\nfn = e('F.scaled_dot_' + 'product_attention')", "eval as a value"),
    ("compile_alias", "c = compile\nfn = c('F.x', '<s>', 'eval')", "compile as a value"),
    ("reduce_getattr", "import functools\nfn = functools.reduce(getattr, ['nn', 'functional', 'x'], torch)", "getattr"),
    ("map_getattr", "fn = list(map(getattr, [F], ['scaled_dot_' + 'product_attention']))[0]", "getattr as a value"),
    ("module_getattribute", "fn = F.__getattribute__('scaled_dot_' + 'product_attention')", "__getattribute__"),
    ("object_getattribute", "fn = object.__getattribute__(F, 'scaled_dot_product_attention')", "__getattribute__"),
    ("import_dotted_name", "fn = torch._utils._import_dotted_name('torch.nn.functional.x')", "torch._utils"),
    ("function_globals", "def f():\n    pass\nfn = f.__globals__['F'].scaled_dot_product_attention", "__globals__"),
    ("builtins_dunder", "fn = __builtins__.getattr(F, 'scaled_dot_' + 'product_attention')", "__builtins__"),
    ("ipython_module", "import IPython\nns = IPython.get_ipython().user_ns", "imports IPython"),
    ("ipython_shell", "ns = get_ipython().user_ns['F']", "get_ipython"),
    ("runpy", "import runpy\nns = runpy.run_module('torch.nn.functional')", "runpy"),
    ("subprocess", "import subprocess\nsubprocess.run(['python', '-c', 'print(1)'])", "subprocess"),
    ("native_mha", "out = torch._native_multi_head_attention(q, k, v, 8, 2, w, b, w, b)", "private"),
    ("torch_compile", "fast = torch.compile(lambda q, k, v: q @ k.mT @ v)", "torch.compile"),
    ("torch_jit", "fast = torch.jit.script(fn)", "torch.jit"),
    ("torch_fx", "graph = torch.fx.symbolic_trace(model)", "torch.fx"),
]

RUNTIME = [  # routes the scan once refused that the kernel now refuses while the rule's checks run
    ("flex_attention", "from torch.nn.attention.flex_attention import flex_attention", "torch.nn.attention"),
    ("transformer_layer", "layer = nn.TransformerEncoderLayer(8, 2)", "TransformerEncoderLayer"),
    ("sdp_kernel", "ctx = torch.backends.cuda.sdp_kernel(enable_math=True)", "torch.backends"),
    ("sdpa_kernel", "from torch.nn.attention import sdpa_kernel", "torch.nn.attention"),
    ("alias_in_function", "def f():\n    import torch.nn as N\n    return N.TransformerEncoder", "TransformerEncoder"),
    ("transformer_in_scope", "m = nn.Transformer(8, 2)", "nn.Transformer"),
    ("layer_norm_alias", "ln = torch.layer_norm", "torch.layer_norm"),
    ("tensor_storage", "def f(q):\n    return q.untyped_storage()", "untyped_storage"),
    ("global_alias", "def f():\n    global G\n    G = torch.nn\n\n\nlayer = G.Transformer(8, 2)", "nn.Transformer"),
    (
        "closure_alias",
        "def f():\n    G = torch.nn\n\n    def g():\n        return G.Transformer\n\n    return g",
        "nn.Transformer",
    ),  # fmt: skip
]
"""Ordinary public code, allowed by the scan: what it reaches of the forbidden computation refuses in the kernel
(autograder/shipped/refusal.py; tests/test_refusal.py runs each route there)."""


@pytest.mark.parametrize("name,source,_", RUNTIME, ids=[c[0] for c in RUNTIME])
def test_public_routes_are_left_to_the_kernel(name, source, _):
    names, cells = RULE_01
    assert perimeter.scan({"sdpa": source}, names, cells) == []


OWN = [  # more ways, found while building the allow-list
    ("module_dict", "fn = torch.nn.functional.__dict__['scaled_dot_product_attention']", "__dict__"),
    ("vars_module", "fn = vars(F)['scaled_dot_product_attention']", "vars"),
    (
        "getattr_computed",
        "names = []\nnames.append('scaled_dot_product_attention')\nfn = getattr(F, names[0])",
        "computed",
    ),
    ("getattr_constant", "names = ['scaled_dot_product_attention']\nfn = getattr(F, names[0])", "forbidden built-in"),
    ("getattr_list_passed", "NAMES = ['q']\nstash(NAMES)\nfn = getattr(F, NAMES[0])", "computed"),
    ("getattr_constant_twice", "N = ('q',)\nN = ('__globals__',)\nfn = getattr(F, N[0])", "computed"),
    ("getattr_constant_star", "from math import *\nN = ('q',)\nfn = getattr(F, N[0])", "computed"),
    ("getattr_constant_param", "N = ('q',)\ndef f(o, N):\n    return getattr(o, N[0])", "computed"),
    (
        "getattr_constant_dunder",
        "N = ('__globals__',)\ndef f(o):\n    return [getattr(o, n) for n in N]",
        "__globals__",
    ),
    ("getattr_literal", "fn = getattr(F, 'scaled_dot_product_attention')", "forbidden built-in"),
    ("type_getattribute", "fn = type(F).__getattribute__(F, 'scaled_dot_product_attention')", "passes the module"),
    ("module_spec", "loader = F.__spec__.loader", "__spec__"),
    ("module_name_chain", "fn = F.__name__.__class__", "reaches torch.nn.functional.__name__.__class__"),
    ("module_dunder_store", "torch.__version__ = 'x'", "torch.__version__ (store)"),
    ("testing_internal", "from torch.testing._internal import common_utils", "private"),
    ("sys_modules", "import sys\nfn = sys.modules['torch.nn.functional'].scaled_dot_product_attention", "sys.modules"),
    ("sys_modules_given", "fn = sys.modules['torch.nn'].TransformerEncoderLayer", "sys.modules"),
    ("partial_decorator", "import functools\n@functools.partial(getattr, F)\ndef x():\n    pass", "getattr as a value"),
    ("lambda_getattr", "g = lambda o, n: getattr(o, n)\nfn = g(F, 'x')", "computed"),
    ("exec_builtins", "__builtins__['exec']('fn = F.x')", "__builtins__"),
    (
        "init_subclass",
        "class A:\n    def __init_subclass__(cls, f=None):\n        cls.f = f\n\n\n"
        "class B(A, f=nn.TransformerDecoderLayer):\n    pass",
        "__init_subclass__",
    ),  # fmt: skip
    ("bytes_decode", "name = bytes([115, 100, 112, 97]).decode()\nfn = getattr(F, name)", "computed"),
    ("torch_functional", "fn = torch.functional.F.scaled_dot_product_attention", "forbidden built-in"),
    ("modules_path", "fn = torch.nn.modules.activation.MultiheadAttention(8, 2)", "torch.nn.modules"),
    ("modules_import", "from torch.nn.modules.activation import MultiheadAttention", "torch.nn.modules"),
    ("generator_frame", "gen = (x for x in [1])\nfn = gen.gi_frame.f_globals['F']", "gi_frame"),
    ("coroutine_frame", "async def c():\n    pass\nframe = c().cr_frame", "cr_frame"),
    ("traceback_frame", "try:\n    1 / 0\nexcept Exception as e:\n    g = e.__traceback__.tb_frame", "__traceback__"),
    ("simple_alias", "G = F\nfn = G.scaled_dot_product_attention", "forbidden built-in"),
    ("from_alias", "from torch.nn import functional as G\nH = G\nfn = H.scaled_dot_product_attention", "forbidden"),
    ("module_returned", "def ns():\n    return torch.nn\nlayer = ns().Transformer(8, 2)", "passes the module"),
    ("module_in_list", "mods = [torch.nn]\nlayer = mods[0].Transformer(8, 2)", "passes the module"),
    ("module_in_class", "class K:\n    m = torch.nn\nlayer = K.m.Transformer(8, 2)", "passes the module"),
    ("module_default", "def f(m=torch.nn):\n    return m.Transformer(8, 2)", "passes the module"),
    ("module_walrus", "layer = (m := torch.nn).Transformer(8, 2)", "passes the module"),
    ("star_import", "from torch.nn.functional import *", "star-imports"),
    ("torch_ops", "fn = torch.ops.aten._scaled_dot_product_attention_math", "torch.ops"),
    ("operator_attrgetter", "import operator\nfn = operator.attrgetter('x')(F)", "operator"),
    ("importlib", "import importlib\nm = importlib.import_module('torch.nn.functional')", "importlib"),
    ("dunder_import", "m = __import__('torch.nn.functional')", "__import__"),
    ("builtins_module", "import builtins\nfn = builtins.getattr(F, 'x')", "builtins"),
    ("inspect", "import inspect\nmembers = inspect.getmembers(F)", "inspect"),
    ("ctypes", "import ctypes\nctypes.pythonapi.PyImport_ImportModule", "ctypes"),
    ("gc_objects", "import gc\nobjs = gc.get_objects()", "gc"),
    ("numpy_pickle", "fn = np.load('x.npy', allow_pickle=True)", "numpy.load"),
    ("torch_load", "fn = torch.load('x.pt', weights_only=False)", "torch.load"),
    ("os_system", "os.system('python -c 1')", "os.system"),
    ("string_formatter", "import string\nfn = string.Formatter().get_field('0.x', [F], {})", "string"),
    ("type_hints", "import typing\nhints = typing.get_type_hints(f)", "typing.get_type_hints"),
    ("match_subject", "match F:\n    case object(scaled_dot_product_attention=fn):\n        pass", "passes the module"),
    ("match_dunder", "def f():\n    pass\nmatch f:\n    case object(__globals__=g):\n        pass", "__globals__"),
    ("code_object", "code = (lambda: 0).__code__", "__code__"),
    ("print_self", "mod = print.__self__", "__self__"),
    ("subclasses", "classes = ().__class__.__base__.__subclasses__()", "__base__"),
    ("torch_function", "fn = torch.Tensor.__torch_function__", "__torch_function__"),
    ("module_compile", "class M(nn.Module):\n    def go(self):\n        return self.compile()", ".compile"),
    ("overrides", "table = torch.overrides.get_overridable_functions()", "torch.overrides"),
    ("torch_hub", "model = torch.hub.load('.', 'model', source='local')", "torch.hub"),
    ("output_history", "fn = Out[3]", "IPython"),
    ("underscore_history", "fn = _", "IPython"),
    ("rule_name_function", "fn = F.multi_head_attention_forward", "forbidden built-in"),
    ("setattr_patch", "setattr(torch.Tensor, 'soft' + 'max', F.softmax)", "patches a library"),
    ("attribute_patch", "F.softmax = F.gelu", "patches a library"),
    ("rebind_builtin", "def getattr(obj, name):\n    return obj", "rebinds the built-in getattr"),
    ("super_getattribute", "fn = super(type(F), F).__getattribute__('x')", "__getattribute__"),
    ("codecs", "import codecs\nname = codecs.decode('fqcn', 'rot13')", "codecs"),
    ("breakpoint", "breakpoint()", "breakpoint"),
    ("globals_call", "fn = globals()['F']", "globals"),
    ("locals_call", "fn = locals()['F']", "locals"),
    ("dir_module", "names = [n for n in dir(F) if 'dot' in n]", "passes the module"),
    ("sys_getframe", "import sys\nframe = sys._getframe(0)", "sys._getframe"),
    ("warnings_sys", "mods = warnings.sys.modules", "sys.modules"),
    ("warnings_catch", "w = warnings.catch_warnings()._module", "._module"),
    ("numpy_ctypes", "lib = np.ctypeslib", "numpy.ctypeslib"),
    ("random_private", "o = random._os", "private"),
    ("getattr_self", "fn = getattr(getattr, '__self__')", "getattr as a value"),
    ("relative_import", "from . import functional", "relative import"),
    ("unknown_module", "import my_helpers", "my_helpers"),
    ("exec_call", "exec('fn = F.x')", "exec"),
    ("magic", "%env X=1", "get_ipython"),  # %time, %timeit, %matplotlib: read as the code they run
    ("shell_escape", "!python -c 'print(1)'", "get_ipython"),
    ("type_store", "class A:\n    pass\ntype(A()).f = 1", "computed object"),
    ("class_store", "class A:\n    pass\nA().__class__.f = 1", "__class__"),
    ("private_tensor_method", "def f(q):\n    return q._values()", "private"),
    (
        "class_shadow_getattr",
        "class A:\n    getattr = getattr\nfn = A.getattr(torch.Tensor, 'x')",
        "getattr as a value",
    ),
    (
        "torch_function_hook",
        "class T(torch.Tensor):\n    @classmethod\n    def __torch_function__(cls, func, types, a=()):\n"
        "        return func",
        "defines __torch_function__",
    ),  # fmt: skip
    (
        "torch_dispatch_hook",
        "class T(torch.Tensor):\n    __torch_dispatch__ = staticmethod(print)",
        "__torch_dispatch__",
    ),
    ("array_ctypes", "def f(a):\n    return a.ctypes.data", ".ctypes"),
    ("class_mro", "def f(q):\n    return type(q).mro()[-1]", ".mro"),
    ("rng_ctypes", "p = np.random.default_rng(0).bit_generator.ctypes", ".ctypes"),
    ("deleted_shadow", "def getattr(o, n):\n    return o\n\n\ndel getattr", "rebinds the built-in getattr"),
    ("local_shadow", "def f(getattr):\n    return getattr(torch.nn, 'Transformer')", "passes the module"),
    ("with_module", "with torch.nn as G:\n    pass", "passes the module"),
    ("for_module", "for G in (torch.nn,):\n    pass", "passes the module"),
    ("calls_to_value", "n = calls_to(lambda: 0, F.scaled_dot_product_attention)", "forbidden built-in"),
    ("function_mode", "class M(torch.overrides.TorchFunctionMode):\n    pass", "torch.overrides"),
    ("workbook_patch", "Check.forbidden = lambda *a, **k: None", "patches a library"),
    # red team: a dataclass pastes field "names" into code it execs (class body, or type()'s dict)
    ("dataclass_field_code", "class B:\n    __annotations__ = {'a,__import__(\"os\")': int}", "binds __annotations__"),
    ("type_dict_class", "B = type('B', (), {'__annotations__': {'a': int}})", "calls type() to make a class"),
    # red team 2: a private name the answer defines in its class was allowed on ANY object; a typing
    # ForwardRef (typing.List["<expr>"]) handed to the answer's __eq__ has `_evaluate`, which evals
    (
        "forwardref_evaluate",
        "import typing\n\n\nclass G:\n    _evaluate = None\n    found = None\n\n    def __eq__(self, other):\n"
        "        G.found = other\n        return True\n\n\n_ok = typing.List['F.scaled_dot_product_attention'] == "
        "typing.List[G()]\nfast = G.found._evaluate(None, None, frozenset())",
        "uses ._evaluate, a private name",
    ),  # fmt: skip
    ("private_of_another", "class A:\n    _x = 1\n\n    def __eq__(self, other):\n        return other._x", "._x"),
    (
        "self_rebound",
        "class A:\n    _evaluate = None\n\n    def f(self, other):\n        self = other\n"
        "        return self._evaluate(None, None, frozenset())",
        "._evaluate",
    ),  # fmt: skip
    (
        "self_rebound_nonlocal",
        "class A:\n    _x = None\n\n    def f(self, other):\n        def g():\n            nonlocal self\n"
        "            self = other\n\n        g()\n        return self._x",
        "._x",
    ),  # fmt: skip
    ("private_chain", "class A:\n    _a = None\n    _b = None\n\n    def f(self):\n        return self._a._b", "._b"),
    ("proxy_cb", "class A:\n    _cb = None\n\n    def f(self, model):\n        return model._cb[0].kernel", "._cb"),
    # red team 3: library code that reads attributes named by strings, and a method called with any self
    ("wraps_updated", "import functools\nw = functools.wraps(f, assigned=(), updated=('__builtins__',))", "wraps"),
    ("define_getattr", "class S:\n    def __getattr__(self, name):\n        return {}", "defines __getattr__"),
    ("define_set_name", "class D:\n    def __set_name__(self, owner, name):\n        pass", "defines __set_name__"),
    (
        "unbound_method",
        "class N:\n    _VF = None\n\n\nclass P:\n    def vf(self):\n        return self._VF\n\n\nx = P.vf(F.softmax)",
        "reads the method .vf off its class",
    ),  # fmt: skip
    (
        "unbound_via_type",
        "class P:\n    _VF = None\n\n    def vf(self):\n        return self._VF\n\n    def g(self, o):\n"
        "        return type(self).vf(o)",
        "reads the method .vf off its class",
    ),  # fmt: skip
    (
        "unbound_via_class",
        "class P:\n    _VF = None\n\n    def vf(self):\n        return self._VF\n\n    def g(self, o):\n"
        "        return self.__class__.vf(o)",
        "reads the method .vf off its class",
    ),  # fmt: skip
    # red team 4: deepcopy's memo holds a tensor's storage, whose .type("a.dotted.name") imports and
    # resolves it; the AttributeError it then raises hands the object back in .obj
    (
        "deepcopy_memo_storage",
        "import copy\nmemo = {}\ncopy.deepcopy(torch.zeros(1), memo)\nstore = list(memo['torch'].values())[0]\n"
        "try:\n    store.type('torch.nn.functional.softmax')\nexcept AttributeError as err:\n    fn = err.obj",
        "passes a memo to copy.deepcopy",
    ),  # fmt: skip
    ("exception_obj", "try:\n    x.nope\nexcept AttributeError as err:\n    fn = err.obj", "uses .obj"),
    (
        "deepcopy_as_value",
        "import copy, functools\nd = functools.partial(copy.deepcopy, memo={})",
        "passes copy.deepcopy",
    ),
    (
        "staticmethod_first",
        "class A:\n    _x = None\n\n    @staticmethod\n    def f(self):\n        return self._x",
        "._x",
    ),  # fmt: skip
]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in ISSUE + OWN], ids=[c[0] for c in ISSUE + OWN])
def test_every_way_around_the_allow_list_is_found(source, expected):
    names, cells = RULE_01
    findings = perimeter.scan({"sdpa": source}, names, cells, given("01_scaled_dot_product_attention"))
    assert findings and not any("could not be parsed" in f for f in findings), (source, findings)
    assert any(expected in f for f in findings), (expected, findings)


def test_the_issue_tricks_and_at_least_ten_more_are_tried():
    assert len(ISSUE) + len([c for c in RUNTIME if c[0] in ("flex_attention", "transformer_layer")]) >= 22
    assert len(OWN) >= 10 and len({c[0] for c in ISSUE + OWN}) == len(ISSUE + OWN)


def test_a_notebook_helper_that_calls_the_built_in_counts_as_calling_it():
    """01's plain cell `oracle` calls F.scaled_dot_product_attention: an answer that calls it is found."""
    names, cells = RULE_01
    source = "def scaled_dot_product_attention(q, k, v, mask=None):\n    return oracle(q, k, v, mask)\n"
    findings = perimeter.scan({"sdpa": source}, names, cells, given("01_scaled_dot_product_attention"))
    assert any("oracle" in f and "scaled_dot_product_attention" in f for f in findings), findings


def test_what_the_notebook_s_own_cells_import_is_judged_like_the_answer_s_imports():
    """08's plain cells import TorchDispatchMode (a private module's) and os: an answer may use neither.

    os.system in gqa, outside the rule's cell, counts too: a way around the refusal counts anywhere."""
    names, cells = rules("08_efficient_attention")[0]
    sources = {"tiled_attention": "class M(TorchDispatchMode):\n    pass\n", "gqa": "os.system('true')\n"}
    found = perimeter.findings(sources, names, cells, given("08_efficient_attention"))
    assert any("torch.utils" in f.what and f.cell == "tiled_attention" for f in found), found
    assert any(f.cell == "gqa" and "os" in f.what and f.kind is perimeter.Kind.PERIMETER for f in found), found


def test_a_cell_outside_the_rule_may_use_a_forbidden_built_in_but_a_way_around_counts_anywhere():
    """Outside the rule's cells the kernel decides (it refuses the built-in there while the rule's checks run);
    a private name, there as anywhere, is a perimeter finding that counts against the rule."""
    names, cells = RULE_03
    direct = {"copy_weights": "def copy_weights(mine):\n    ref = nn.MultiheadAttention(8, 2)\n    return ref\n"}
    assert perimeter.scan(direct, names, cells) == []
    aliased = {"copy_weights": "MHA = nn.MultiheadAttention\n"}
    assert perimeter.scan(aliased, names, cells) == []
    private = {"copy_weights": "out = torch._native_multi_head_attention\n"}
    found = perimeter.findings(private, names, cells)
    assert [f.kind for f in found] == [perimeter.Kind.PERIMETER] and "private" in found[0].what, found


def test_a_cell_outside_the_rule_that_plants_a_built_in_on_an_object_the_rule_s_cells_use_is_covered():
    """copy_weights stores nn.MultiheadAttention(...) on an object of the notebook's that mha then reads."""
    names, cells = RULE_03
    sources = {
        "mha": "class MultiHeadAttention(nn.Module):\n    def forward(self, q, k, v):\n        return Box.m(q, k, v)\n",
        "copy_weights": "def copy_weights(mine):\n    Box.m = nn.MultiheadAttention(8, 2)\n",
    }
    findings = perimeter.scan(sources, names, cells, ["class Box:\n    pass\n"])
    assert any("copy_weights" in f and "forbidden built-in torch.nn.MultiheadAttention" in f for f in findings)
    planted = {"mha": sources["mha"], "copy_weights": "MultiHeadAttention.m = nn.MultiheadAttention(8, 2)\n"}
    assert any("copy_weights" in f for f in perimeter.scan(planted, names, cells))
    on_workbook = {"mha": sources["mha"], "copy_weights": "Check.m = nn.MultiheadAttention(8, 2)\n"}
    found = perimeter.scan(on_workbook, names, cells)  # the kernel's own workbook patched: counted, anywhere
    assert any("patches a library" in f for f in found), found


def test_a_list_root_does_not_hide_a_cell_from_the_rule():
    """`[fn][0].attr = built-in` in another cell changes fn as much as `fn.attr = built-in` does."""
    names, cells = RULE_03
    sources = {
        "mha": "class MultiHeadAttention(nn.Module):\n    def forward(self, q, k, v):\n        return self.m(q, k, v)\n",
        "copy_weights": "[MultiHeadAttention][0].m = nn.MultiheadAttention(8, 2)\n",
    }
    assert any("copy_weights" in f and "forbidden built-in" in f for f in perimeter.scan(sources, names, cells))


@pytest.mark.parametrize(
    "source",
    [
        "def f(m):\n    return isinstance(m, nn.MultiheadAttention)",
        "def f(m: nn.MultiheadAttention, x: torch.Tensor) -> torch.Tensor:\n    return x.softmax(-1)",
        "def f(ms: list[nn.MultiheadAttention] | None = None):\n    return ms",
        "def f(x):\n    return issubclass(type(x), (nn.TransformerEncoderLayer, nn.Linear))",
        "def forward(self, input):\n    return input.shape, input.mT, input.masked_fill_(input > 0, 0.0)",
        "class A(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.register_buffer('_mask', None)\n        self._cache = {}\n\n    def _step(self, x):\n        return self._mask, self._cache, self._step",
        "def f(xs):\n    return sorted(xs, key=len), [int(x) for x in xs], list(map(float, xs))",
        "x = getattr(module, 'weight')\nok = hasattr(module, 'bias')",
        "import sys\nprint('note', file=sys.stderr)",
        "for _ in range(3):\n    pass\nfirst, _ = (1, 2)",
        "act = F.relu\nlow = torch.finfo(torch.float32).min\nshape = torch.Size([2])",
        "@torch.no_grad()\ndef f(x):\n    return torch.softmax(x @ x.mT / math.sqrt(x.shape[-1]), dim=-1)",
        "def f(x):\n    try:\n        return np.exp(x)\n    except (ValueError, TypeError) as e:\n"
        "        raise RuntimeError(str(e))",
        "import torch.nn.functional as G\nfrom torch import nn as N\nlayer = N.Linear(2, 2)\ny = G.softmax(x, -1)",
        "setattr(self, name, nn.Linear(2, 2))",
        "print(type(x).__name__, x.__class__.__name__)",
        "def f(q):\n    return q.max(-1).values, q.topk(2).indices, {1: 2}.values(), q.new_zeros(2)",
        "from __future__ import annotations\nprint(torch.__version__, np.__version__, F.__name__)",
        "torch.testing.assert_close(a, b)\nnp.testing.assert_allclose(a, b)",
        "def f(m):\n    match m:\n        case nn.MultiheadAttention(embed_dim=d):\n            return d",
        "class A:\n    act = nn.ReLU\n    __slots__ = ()\n\n    def f(self, x):\n        return self.act()(x)",
        "class A:\n    def __init__(self):\n        self._n = 0\n\n    def f(self):\n        def g():\n"
        "            return self._n\n\n        return g()\n\n    @classmethod\n    def make(cls):\n"
        "        return cls._build()\n\n    @classmethod\n    def _build(cls):\n        return cls()",
        "class C(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.n = 2\n\n"
        "    def __len__(self):\n        return self.n\n\n    def forward(self, x):\n        return self.step(x)\n\n"
        "    def step(self, x):\n        return x * len(self)",
        "import copy\n\n\nclass H:\n    def __init__(self, obj):\n        self.obj = copy.deepcopy(obj)\n\n"
        "    def get(self):\n        return self.obj",
    ],
)
def test_honest_code_is_not_flagged(source):
    names, cells = RULE_01
    assert perimeter.scan({"sdpa": source}, names, cells, given("01_scaled_dot_product_attention")) == []


def _submissions(name: str) -> list[tuple[str, dict[str, str]]]:
    """The reference answers, the released stubs, each right catalogue entry and sample answer file."""
    reference = answers.reference_answers(_notebook(name))
    released = nbformat.read(paths.NOTEBOOKS / f"{name}.ipynb", as_version=4)
    stubs = {answers.grade_id(c): c.source for c in released.cells if answers.is_answer(c)}
    out = [("reference", reference), ("stubs", stubs)]
    for path in sorted((CATALOGUE / name).glob("right_*.py")) + sorted(SAMPLES.glob(f"*/{name}.py")):
        out.append((path.stem, {**reference, **answers.load_answer_file(path, reference)}))
    return out


@pytest.mark.parametrize("name", NAMES)
def test_reference_stubs_right_entries_and_samples_have_no_finding(name):
    """Under each of the notebook's rules, and (notebooks without one) under a rule covering no cell."""
    checked = 0
    for label, sources in _submissions(name):
        for names, cells in rules(name) or [([], [])]:
            assert perimeter.scan(sources, names, cells, given(name)) == [], (name, label, names)
            checked += len(sources)
    assert checked


BUILTIN_ENTRIES = {
    "wrong_calls_builtin",
    "wrong_ln_uses_builtin",
    "wrong_rms_uses_builtin",
    "wrong_tiled_calls_sdpa",
    "wrong_ln_builtin_set_in_another_cell",  # bucket_batches plants it on LayerNorm, which layer_norm reads
    "wrong_adamw_builtin_stashed_by_schedule_cell",  # lr_schedule fills the dict adamw reads
    "wrong_clip_builtin_through_a_closure",  # perplexity fills the list clip_grad reads
    "wrong_tiled_impl_set_in_another_cell",  # generate plants it through a list root: [tiled_attention][0].impl
}


@pytest.mark.parametrize("name", NAMES)
def test_wrong_entries_are_found_only_where_they_call_the_built_in(name):
    """A wrong entry packed with others must not cost them a rule's points; the built-in ones say 'forbidden'."""
    reference = answers.reference_answers(_notebook(name))
    for path in sorted((CATALOGUE / name).glob("wrong_*.py")):
        sources = {**reference, **answers.load_answer_file(path, reference)}
        found = [f for names, cells in rules(name) for f in perimeter.scan(sources, names, cells, given(name))]
        if path.stem in BUILTIN_ENTRIES:
            assert found and "forbidden built-in" in found[0], (path.stem, found)
        else:
            assert found == [], (path.stem, found)


def test_unparsable_and_deeply_nested_cells_are_findings_not_errors():
    names, cells = RULE_01
    assert "could not be parsed" in perimeter.scan({"sdpa": "def (:"}, names, cells)[0]
    assert perimeter.scan({"sdpa": "x = " + "+".join(["q"] * 900)}, names, cells) == []  # walked without recursion
    assert "could not be parsed" in perimeter.scan({"sdpa": "x = " + "+".join(["q"] * 20000)}, names, cells)[0]


RULE_05 = next(r for r in rules("05_encoder_classifier") if "LayerNorm" in r[0])


@pytest.mark.parametrize(
    ("cell", "source", "flagged"),
    [
        (
            "encoder_block",
            "def norms(m: nn.Module) -> list[nn.LayerNorm]:\n"
            "    return [x for x in m.modules() if isinstance(x, nn.LayerNorm)]",
            False,
        ),
        (
            "encoder_block",
            "class B(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.norm1 = nn.LayerNorm(8)",
            False,
        ),
        (
            "layer_norm",
            "class LayerNorm(nn.Module):\n    def load(self, other: nn.LayerNorm):\n"
            "        assert isinstance(other, nn.LayerNorm)\n        return other",
            False,
        ),
        (
            "layer_norm",
            "class LayerNorm(nn.Module):\n    def forward(self, x):\n        return nn.LayerNorm(x.shape[-1])(x)",
            True,
        ),
        (
            "layer_norm",
            "class LayerNorm(nn.Module):\n    def forward(self, x):\n        return F.layer_norm(x, x.shape[-1:])",
            True,
        ),
        ("encoder_block", "Norm = nn.LayerNorm\nclass B(nn.Module):\n    pass", False),  # the kernel refuses it
    ],
)
def test_05_judges_what_is_called_not_what_is_named(cell, source, flagged):
    """Issue 33: an isinstance or a type annotation naming nn.LayerNorm is allowed; calling it in LayerNorm is not."""
    names, cells = RULE_05
    reference = answers.reference_answers(_notebook("05_encoder_classifier"))
    findings = perimeter.scan({**reference, cell: source}, names, cells, given("05_encoder_classifier"))
    assert bool(findings) == flagged, findings


DEMO = "\nx = torch.randn(2, 3, 8)\nprint(x.shape)\n"  # a learner's own try-out at a cell's end


@pytest.mark.parametrize(
    ("extra", "flagged"),
    [  # the red team's honest learner: the same demo name in the rule's cell and in a cell using nn.LayerNorm
        ({"layer_norm": DEMO, "encoder_block": DEMO}, False),
        ({"layer_norm": DEMO, "encoder_block": DEMO + "y = nn.LayerNorm(8)(x)\n"}, False),
        # what the checks call through the rule's cell: a helper of another cell, or its class changed there
        ({"layer_norm": "\ndef centre(x):\n    return x\n", "encoder_block": "\ncentre = F.layer_norm\n"}, True),
        ({"encoder_block": "\nLayerNorm.forward = lambda self, x: F.layer_norm(x, x.shape[-1:])\n"}, True),
    ],
)
def test_05_a_shared_demo_name_pulls_no_cell_into_the_rule(extra, flagged):
    """Only what the rule's checks can reach (names read inside its functions and classes, the ones it defines)
    brings another cell into the rule; a top-level try-out sharing a name with another cell's does not."""
    names, cells = RULE_05
    reference = answers.reference_answers(_notebook("05_encoder_classifier"))
    sources = {c: reference[c] + extra.get(c, "") for c in reference}
    if "centre" in extra.get("layer_norm", ""):  # the rule's LayerNorm calls the helper
        sources["layer_norm"] = sources["layer_norm"].replace(
            "def forward(self, x):", "def forward(self, x):\n        x = centre(x)", 1
        )
    findings = perimeter.scan(sources, names, cells, given("05_encoder_classifier"))
    assert bool(findings) == flagged, findings


@pytest.mark.parametrize(
    ("magic", "flagged"),
    [  # the timing and plotting magics an honest learner writes, and what they run judged as code
        ("%%time\n", False),
        ("%%timeit -n 1 -r 1 y = 0\n", False),
        ("%matplotlib inline\n", False),
        ("%%time\nimport os\n", True),
        ("%time get_ipython()\n", True),
        ("%timeit -n 1 F.layer_norm(x, (8,))\n", True),
        ("%run other.py\n", True),
    ],
)
def test_05_timing_magics_are_read_as_the_code_they_run(magic, flagged):
    names, cells = RULE_05
    reference = answers.reference_answers(_notebook("05_encoder_classifier"))
    sources = {**reference, "layer_norm": magic + reference["layer_norm"] + "\nx = torch.randn(2, 8)\n"}
    findings = perimeter.scan(sources, names, cells, given("05_encoder_classifier"))
    assert bool(findings) == flagged, findings


@pytest.mark.parametrize("name", paths.notebook_names())
def test_each_rule_is_data_in_its_test_cell_and_agrees_with_its_check(name):
    """The harness arms from the test cell's metadata; the cell's check.forbidden (the learner's own refusal in the
    notebook) states the same names, cells and message, so the notebook says what grading holds."""
    for cell in _notebook(name).cells:
        if answers.is_test(cell):
            declared = [(r.names, r.cells, r.message) for r in perimeter.cell_rules(cell)]
            assert declared == [(r.names, r.cells, r.message) for r in forbidden_rules(cell.source)], (name, cell.id)


@pytest.mark.parametrize(
    "route",
    [
        "import os\npid = os.fork()\n",  # a copy of the kernel, started before the rule is armed
        "program = torch.export.export(model, (x,)).run_decompositions()\n",  # the built-in decomposed, unrefused
        "torch.library.Library.impl = lambda self, *a, **k: None\n",  # no refusing kernel registered
        "import sys\nsys.modules['_wb_refusal'] = fake\n",  # a fake controller claimed instead of the real one
        "import types\nfake = types.ModuleType('_wb_refusal')\n",
    ],
)
def test_a_way_around_in_a_cell_outside_the_rule_counts_against_it(route):
    """The routes that kept a rule's points from outside its cells (03, 05, 08, 09) are perimeter findings there."""
    names, cells = RULE_03
    found = perimeter.findings({"copy_weights": route}, names, cells)
    assert found and all(f.kind is perimeter.Kind.PERIMETER for f in found), found
    assert perimeter.scan({"copy_weights": route}, names, cells), "a perimeter finding must count"


@pytest.mark.parametrize(
    "source",
    [  # the loop variable rebound where the scan must see it: a match capture, a global, a walrus, a nested def
        "def f(o, n):\n    for p in ('q',):\n        match n:\n            case p:\n                pass\n        return getattr(o, p)\n",
        "def g(v):\n    global p\n    p = v\ndef f(o, n):\n    global p\n    for p in ('q',):\n        g(n)\n        return getattr(o, p)\n",
        "def f(o, n):\n    for p in ('q',):\n        (p := n)\n        return getattr(o, p)\n",
        "def f(o, n):\n    for p in ('q',):\n        def h():\n            nonlocal p\n            p = n\n        h()\n        return getattr(o, p)\n",
        "def f(o, n):\n    for p in ('q',):\n        try:\n            raise ValueError\n        except ValueError as p:\n            pass\n        return getattr(o, p)\n",
        "def enumerate(x):\n    return [(0, '__globals__')]\ndef f(o):\n    for i, p in enumerate(('q',)):\n        return getattr(o, p)\n",
        # a module constant changed where the scan must see it: a global statement, a mutation, a second cell
        "N = ('q',)\ndef g(v):\n    global N\n    N = v\ndef f(o):\n    return [getattr(o, n) for n in N]\n",
        "N = ['q']\nN += ['__globals__']\ndef f(o):\n    return [getattr(o, n) for n in N]\n",
        "N = ['q']\nN[0] = '__globals__'\ndef f(o):\n    return getattr(o, N[0])\n",
        "N = ['q']\ndef f(o, N=N):\n    return getattr(o, N[0])\n",
        "for n in ('q',):\n    pass\nn = input()\nx = getattr(model, n)\n",
        "N = ['q']\nN.append('__globals__')\nfor n in N:\n    x = getattr(model, n)\n",
        "for a in B:\n    pass\nfor B in a:\n    pass\nx = getattr(model, a)\n",
        # a local constant or a counter the scan must not trust
        "def f(m):\n    names = ['q']\n    names.append('__dict__')\n    return [getattr(m, n) for n in names]\n",
        "def f(m, x):\n    names = ('q',)\n    if x:\n        names = ('__dict__',)\n    return [getattr(m, n) for n in names]\n",
        "def f(m):\n    for i in range(2):\n        pass\n    i = '__dict__'\n    return getattr(m, f'{i}')\n",
        "def range(n):\n    return ['__dict__']\ndef f(m):\n    return [getattr(m, f'{i}') for i in range(2)]\n",
        "class S(str):\n    def __eq__(self, o):\n        return True\n    __hash__ = str.__hash__\n"
        "def act(name):\n    if name not in ('relu',):\n        raise ValueError\n    return getattr(F, name)\n",
        "class S(str):\n    __eq__ = lambda self, o: True\n"
        "def act(name):\n    if name not in ('relu',):\n        raise ValueError\n    return getattr(F, name)\n",
        "def act(name):\n    f = getattr(F, name)\n    if name not in ('relu',):\n        raise ValueError\n    return f\n",
        "def act(name):\n    if name not in ('relu',):\n        print(name)\n    return getattr(F, name)\n",
        "def act(name):\n    if name not in ('relu',):\n        raise ValueError\n    name = name.upper()\n    return getattr(F, name)\n",
        "def sorted(x):\n    x[0] = '__globals__'\n    return x\nN = ['q']\nsorted(N)\ndef f(o):\n    return getattr(o, N[0])\n",
    ],
)
def test_a_computed_name_the_scan_cannot_pin_down_is_a_finding(source):
    assert any("computed attribute name" in f for f in perimeter.scan({"sdpa": source}, ["x"])), source


@pytest.mark.parametrize(
    "source",
    [
        "def f(m):\n    return [getattr(m, f'{n}_proj') for n in ('q', 'k', 'v')]\n",
        "def f(m):\n    for i, n in enumerate(('q', 'k', 'v')):\n        getattr(m, f'{n}_proj').weight.zero_()\n",
        "def f(m, ws):\n    for n, w in zip(('q', 'k', 'v'), ws):\n        getattr(m, n + '_proj').weight.copy_(w)\n",
        # module-level constants bound once to literal strings (a list only ever read)
        "NAMES = ('q', 'k', 'v')\ndef f(m):\n    return [getattr(m, f'{n}_proj') for n in NAMES]\n",
        "NAMES = ['q', 'k', 'v']\ndef f(m):\n    for i, n in enumerate(NAMES):\n        getattr(m, n + '_proj').weight.zero_()\n",
        "NAMES: tuple[str, ...] = ('q', 'k', 'v')\ndef f(m, i):\n    return getattr(m, f'{NAMES[i]}_proj')\n",
        "SUFFIX = '_proj'\ndef f(m, ws):\n    for n, w in zip(('q', 'k'), ws):\n        getattr(m, n + SUFFIX).weight.copy_(w)\n",
        "NAMES = ['q', 'k']\nassert len(NAMES) == 2\ndef f(m):\n    return {n: getattr(m, n) for n in sorted(NAMES)}\n",
        "for n in ('q', 'k', 'v'):\n    getattr(model, f'{n}_proj').weight.data.zero_()\n",
        # a function's own constant of names, and numbered attributes from range or enumerate
        "def f(m):\n    names = ['q_proj', 'k_proj', 'v_proj']\n    return [getattr(m, n) for n in names]\n",
        "def f(m):\n    names: tuple = ('q', 'k')\n    for n in names:\n        getattr(m, n + '_proj').weight.zero_()\n",
        "def f(m, h):\n    return [getattr(m, f'head_{i}') for i in range(h)]\n",
        "def f(m, xs):\n    for i, x in enumerate(xs):\n        setattr(m, f'layer{i}', x)\n        getattr(m, f'layer{i}')\n",
        "def act(name='relu'):\n    if name not in ('relu', 'gelu'):\n        raise ValueError(name)\n    return getattr(F, name)\n",
        "NAMES = ('q', 'k')\nfor i, n in enumerate(NAMES):\n    print(i, getattr(model, n + '_proj').weight.shape)\n",
        "class Average:\n    def __iadd__(self, v):\n        return self\n    def __float__(self):\n        return 0.0\n    def __format__(self, spec):\n        return format(float(self), spec)\n",
    ],
)
def test_honest_computed_names_and_protocol_methods_are_no_finding(source):
    assert perimeter.findings({"copy_weights": source}, ["x"], ["sdpa"]) == []
