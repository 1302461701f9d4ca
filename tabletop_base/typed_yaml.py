"""Typed YAML configuration.

Files are parsed with PyYAML's *safe* loader (no object construction), but through its
node tree rather than ``yaml.safe_load`` directly, so that every value keeps the line it
came from. The nodes are then turned into frozen dataclasses field by field:

* unknown keys are refused, missing required keys are reported;
* every error names the file, the key path (``characters[1].max_hp``) and the line;
* the conversion is driven by the dataclass type hints (int, float, str, bool, Literal,
  tuple[T, ...], dict[str, T], Optional, nested dataclasses), so a new config type is a
  dataclass and nothing else;
* parsing is bounded: nesting deeper than :data:`MAX_DEPTH`, more than :data:`MAX_ALIASES`
  aliases, or a document whose aliases expand to more than :data:`MAX_NODES` values (a
  "billion laughs" file) is refused before it is built, and a value that cannot be converted
  (a 5,000-digit integer, the date 2001-13-45) is a located error, never a traceback.

Config is loaded once at start-up and passed in; nothing reads it from a global.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from pathlib import Path
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

import yaml

from .errors import ConfigError

T = TypeVar("T")

_MISSING = dataclasses.MISSING

MAX_DEPTH = 64        # nesting levels (the shipped files use fewer than 8)
MAX_ALIASES = 100     # *alias uses in one file
MAX_NODES = 100_000   # values once every alias is expanded (the largest shipped file: ~3,000)
MAX_TEXT = 4 << 20    # characters in one file
_BRACKETS = re.compile(r"[\[\]{}]")
_VALUE_ERRORS = (yaml.YAMLError, ValueError, OverflowError, TypeError, RecursionError)


class _BoundedLoader(yaml.SafeLoader):
    """The safe loader with a depth and an alias budget, checked while composing (so the
    refusal names the line and comes before any expansion)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise yaml.composer.ComposerError(
                    None, None, f"more than {MAX_ALIASES} aliases (*name) in one file",
                    self.peek_event().start_mark)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise yaml.composer.ComposerError(
                    None, None, f"nested more than {MAX_DEPTH} levels deep",
                    self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _flow_depth(text: str, file: str) -> None:
    """Refuse ``[[[[...`` nesting before PyYAML's scanner sees it (it slows down with every
    open flow level). Brackets inside quoted text count too: a file would need more than
    MAX_DEPTH unclosed ones in strings to be refused wrongly."""
    depth = 0
    for match in _BRACKETS.finditer(text):
        if match.group() in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                line = text.count("\n", 0, match.start()) + 1
                raise ConfigError(file, line, "", f"malformed YAML: nested more than "
                                                  f"{MAX_DEPTH} levels deep")
        elif depth:
            depth -= 1


def _expanded_size(root: yaml.Node, file: str) -> None:
    """Refuse a document whose aliases expand past MAX_NODES values; each distinct node is
    sized once, so this costs the file's size, not its expansion."""
    sizes: dict[int, int] = {}

    def size(node: yaml.Node, depth: int) -> int:
        known = sizes.get(id(node))
        if known is not None:
            return known
        total = 1
        if depth > MAX_DEPTH:  # an alias loop back into its own parent
            raise ConfigError(file, _line(node), "", "an alias refers to its own parent")
        if isinstance(node, yaml.SequenceNode):
            for child in node.value:
                total += size(child, depth + 1)
                if total > MAX_NODES:
                    break
        elif isinstance(node, yaml.MappingNode):
            for key, child in node.value:
                total += size(key, depth + 1) + size(child, depth + 1)
                if total > MAX_NODES:
                    break
        if total > MAX_NODES:
            raise ConfigError(file, _line(node), "", f"its aliases expand to more than "
                                                     f"{MAX_NODES:,} values")
        sizes[id(node)] = total
        return total

    size(root, 0)


def yaml_key(f: dataclasses.Field[Any]) -> str:
    """The YAML key of a dataclass field: ``metadata["key"]`` when set, else its name."""
    return str(f.metadata.get("key", f.name))


def _line(node: yaml.Node | None) -> int | None:
    return None if node is None else node.start_mark.line + 1


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


class _Builder:
    def __init__(self, file: str, loader: yaml.SafeLoader) -> None:
        self.file = file
        self.loader = loader

    def fail(self, node: yaml.Node | None, path: str, problem: str) -> ConfigError:
        return ConfigError(self.file, _line(node), path, problem)

    # -- scalars -----------------------------------------------------------------------
    def scalar(self, node: yaml.Node, path: str) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            kind = "a list" if isinstance(node, yaml.SequenceNode) else "a mapping"
            raise self.fail(node, path, f"expected a single value, got {kind}")
        return self.construct(node, path)

    def construct(self, node: yaml.Node, path: str) -> Any:
        try:
            return self.loader.construct_object(node, deep=True)
        except _VALUE_ERRORS as exc:  # a bad timestamp, a 5,000-digit integer
            shown = node.value if isinstance(node, yaml.ScalarNode) else "this value"
            if isinstance(shown, str) and len(shown) > 40:
                shown = shown[:37] + "..."
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            if "Exceeds the limit" in reason:
                reason = "a number with more than 4,300 digits"
            raise self.fail(node, path, f"unreadable value {shown!r}: {reason[:120]}") from None

    def build(self, tp: Any, node: yaml.Node, path: str) -> Any:
        origin = get_origin(tp)
        if tp is Any:
            return self.construct(node, path)
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            return self.dataclass(tp, node, path)
        if origin in (Union, types.UnionType):
            options = get_args(tp)
            if type(None) in options and isinstance(node, yaml.ScalarNode) and \
                    self.construct(node, path) is None:
                return None
            rest = [o for o in options if o is not type(None)]
            errors = []
            for option in rest:
                try:
                    return self.build(option, node, path)
                except ConfigError as exc:
                    errors.append(exc.problem)
            raise self.fail(node, path, " or ".join(errors))
        if origin is Literal:
            value = self.scalar(node, path)
            allowed = get_args(tp)
            if value not in allowed:
                choices = ", ".join(repr(a) for a in allowed)
                raise self.fail(node, path, f"{value!r} is not one of {choices}")
            return value
        if origin is tuple:
            args = get_args(tp)
            if not isinstance(node, yaml.SequenceNode):
                raise self.fail(node, path, f"expected a list, got {self._describe(node)}")
            if len(args) == 2 and args[1] is Ellipsis:
                return tuple(self._item(args[0], item, f"{path}[{i}]")
                             for i, item in enumerate(node.value))
            if len(node.value) != len(args):
                raise self.fail(node, path, f"expected a list of {len(args)} values, "
                                            f"got {len(node.value)}")
            return tuple(self.build(a, item, f"{path}[{i}]")
                         for i, (a, item) in enumerate(zip(args, node.value)))
        if origin is dict:
            key_tp, value_tp = get_args(tp)
            if not isinstance(node, yaml.MappingNode):
                raise self.fail(node, path, f"expected a mapping, got {self._describe(node)}")
            out = {}
            for key_node, value_node in node.value:
                key = self.build(key_tp, key_node, path)
                if key in out:
                    raise self.fail(key_node, _join(path, str(key)), "duplicate key")
                out[key] = self.build(value_tp, value_node, _join(path, str(key)))
            return out
        if tp is bool:
            value = self.scalar(node, path)
            if not isinstance(value, bool):
                raise self.fail(node, path, f"expected true or false, got {value!r}")
            return value
        if tp is int:
            value = self.scalar(node, path)
            if isinstance(value, bool) or not isinstance(value, int):
                raise self.fail(node, path, f"expected a whole number, got {value!r}")
            return value
        if tp is float:
            value = self.scalar(node, path)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise self.fail(node, path, f"expected a number, got {value!r}")
            return float(value)
        if tp is str:
            value = self.scalar(node, path)
            if not isinstance(value, str):
                raise self.fail(node, path, f"expected text, got {value!r}")
            return value
        raise TypeError(f"config type {tp!r} at {path} is not supported")  # programming error

    def _item(self, tp: Any, node: yaml.Node, path: str) -> Any:
        """A list item; an error inside an item that has a ``name`` also says the name
        ("... out of range (1 to 12) [Oso, in Teriomorphs]"), since an index alone is hard
        to find in a roster."""
        try:
            return self.build(tp, node, path)
        except ConfigError as err:
            name = self._name(node)
            if name is None:
                raise
            if err.problem.endswith("]") and " [" in err.problem:
                head, inner = err.problem.rsplit(" [", 1)
                problem = f"{head} [{inner[:-1]}, in {name}]"
            else:
                problem = f"{err.problem} [{name}]"
            raise ConfigError(err.file, err.line, err.key_path, problem) from None

    @staticmethod
    def _name(node: yaml.Node) -> str | None:
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if getattr(k, "value", None) == "name" and isinstance(v, yaml.ScalarNode) \
                        and str(v.value).strip():
                    return str(v.value)
        return None

    @staticmethod
    def _describe(node: yaml.Node) -> str:
        if isinstance(node, yaml.SequenceNode):
            return "a list"
        if isinstance(node, yaml.MappingNode):
            return "a mapping"
        return repr(node.value)

    def dataclass(self, cls: type, node: yaml.Node, path: str) -> Any:
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, path or "(top level)",
                            f"expected a mapping of {cls.__name__} fields, "
                            f"got {self._describe(node)}")
        hints = typing.get_type_hints(cls)
        # a field's YAML key is its name, or metadata["key"] (a card's "str" is field str_)
        fields = {yaml_key(f): f for f in dataclasses.fields(cls) if f.init}
        values: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = self.scalar(key_node, path)
            key_path = _join(path, str(key))
            if key not in fields:
                known = ", ".join(sorted(fields))
                raise self.fail(key_node, key_path, f"unknown key {key!r} (known keys: {known})")
            name = fields[key].name
            if name in values:
                raise self.fail(key_node, key_path, "duplicate key")
            values[name] = self.build(hints[name], value_node, key_path)
        for key, field in fields.items():
            if field.name not in values and field.default is _MISSING \
                    and field.default_factory is _MISSING:
                raise self.fail(node, _join(path, key), "required key is missing")
        try:
            obj = cls(**values)
        except (ValueError, TypeError) as exc:
            raise self.fail(node, path or "(top level)", str(exc)) from None
        check = getattr(obj, "validate", None)
        if check is not None:
            problem = check()
            if problem:
                key, message = problem
                target = self._child(node, key)
                raise self.fail(target, _join(path, key), message)
        return obj

    @staticmethod
    def _child(node: yaml.MappingNode, dotted: str) -> yaml.Node:
        """The node a dotted/indexed path points to below ``node`` (best effort)."""
        current: yaml.Node = node
        for part in dotted.replace("[", ".[").split("."):
            if not part:
                continue
            if part.startswith("[") and isinstance(current, yaml.SequenceNode):
                index = int(part.strip("[]"))
                if index < len(current.value):
                    current = current.value[index]
                continue
            if isinstance(current, yaml.MappingNode):
                for k, v in current.value:
                    if k.value == part:
                        current = v
                        break
        return current


def read_text(path: str | Path) -> str:
    """A config file's text: ConfigError naming the file (and the line of a bad byte)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(str(path), None, "", "file not found") from None
    except OSError as exc:
        raise ConfigError(str(path), None, "", f"cannot read: {exc.strerror}") from None
    return decode_text(raw, str(path))


def decode_text(raw: bytes, file: str) -> str:
    """UTF-8 bytes as text: ConfigError naming the file, line and byte when they are not."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise ConfigError(file, line, "", f"not UTF-8 text (byte {exc.start}: "
                                          f"0x{raw[exc.start]:02x})") from None


def load_typed(cls: type[T], path: str | Path) -> T:
    """Load the YAML file at ``path`` into an instance of dataclass ``cls``."""
    text = read_text(path)
    return loads_typed(cls, text, str(path))


def loads_typed(cls: type[T], text: str, file: str = "<string>") -> T:
    """Like :func:`load_typed` for YAML text already in memory."""
    if len(text) > MAX_TEXT:
        raise ConfigError(file, None, "", f"the file is larger than {MAX_TEXT:,} characters")
    _flow_depth(text, file)
    loader = None
    try:
        loader = _BoundedLoader(text)
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        raise ConfigError(file, line, "", f"malformed YAML: {exc.problem or exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(file, None, "", f"malformed YAML: {exc}") from None
    except RecursionError:  # a guard above should have caught it first
        raise ConfigError(file, None, "", "malformed YAML: nested too deeply") from None
    finally:
        if loader is not None:
            loader.dispose()
    if node is None:
        raise ConfigError(file, None, "", "the file is empty")
    _expanded_size(node, file)
    try:
        return _Builder(file, yaml.SafeLoader("")).build(cls, node, "")
    except RecursionError:
        raise ConfigError(file, _line(node), "", "nested too deeply") from None


def dump_yaml(data: Any) -> str:
    """YAML text for plain data (dicts, lists, scalars), keys in the given order."""
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
