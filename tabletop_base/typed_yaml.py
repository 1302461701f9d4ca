"""Typed YAML configuration.

Files are parsed with PyYAML's *safe* loader (no object construction), but through its
node tree rather than ``yaml.safe_load`` directly, so that every value keeps the line it
came from. The nodes are then turned into frozen dataclasses field by field:

* unknown keys are refused, missing required keys are reported;
* every error names the file, the key path (``characters[1].max_hp``) and the line;
* the conversion is driven by the dataclass type hints (int, float, str, bool, Literal,
  tuple[T, ...], dict[str, T], Optional, nested dataclasses), so a new config type is a
  dataclass and nothing else.

Config is loaded once at start-up and passed in; nothing reads it from a global.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from pathlib import Path
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

import yaml

from .errors import ConfigError

T = TypeVar("T")

_MISSING = dataclasses.MISSING


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
        try:
            return self.loader.construct_object(node, deep=True)
        except yaml.YAMLError as exc:  # e.g. a bad timestamp
            raise self.fail(node, path, f"unreadable value {node.value!r}: {exc}") from None

    def build(self, tp: Any, node: yaml.Node, path: str) -> Any:
        origin = get_origin(tp)
        if tp is Any:
            return self.loader.construct_object(node, deep=True)
        if dataclasses.is_dataclass(tp):
            return self.dataclass(tp, node, path)
        if origin in (Union, types.UnionType):
            options = get_args(tp)
            if type(None) in options and isinstance(node, yaml.ScalarNode) and \
                    self.loader.construct_object(node) is None:
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


def load_typed(cls: type[T], path: str | Path) -> T:
    """Load the YAML file at ``path`` into an instance of dataclass ``cls``."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(str(path), None, "", "file not found") from None
    except OSError as exc:
        raise ConfigError(str(path), None, "", f"cannot read: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise ConfigError(str(path), line, "", f"not UTF-8 text (byte {exc.start}: "
                                               f"0x{raw[exc.start]:02x})") from None
    return loads_typed(cls, text, str(path))


def loads_typed(cls: type[T], text: str, file: str = "<string>") -> T:
    """Like :func:`load_typed` for YAML text already in memory."""
    loader = None
    try:
        loader = yaml.SafeLoader(text)
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        raise ConfigError(file, line, "", f"malformed YAML: {exc.problem or exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(file, None, "", f"malformed YAML: {exc}") from None
    finally:
        if loader is not None:
            loader.dispose()
    if node is None:
        raise ConfigError(file, None, "", "the file is empty")
    return _Builder(file, yaml.SafeLoader("")).build(cls, node, "")


def dump_yaml(data: Any) -> str:
    """YAML text for plain data (dicts, lists, scalars), keys in the given order."""
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
