"""The cost rule: how many nodes an operation would fetch, estimated before it runs (as GitHub counts them), and
how many fields it selects once its fragments are spread; either past the limit is refused with LIMIT_EXCEEDED."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterator, Mapping
from typing import Any, cast

from graphql import (
    ASTValidationRule,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLField,
    GraphQLInterfaceType,
    GraphQLNamedType,
    GraphQLObjectType,
    InlineFragmentNode,
    IntValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValidationRule,
    VariableNode,
    get_named_type,
)
from strawberry.extensions import AddValidationRules

from vaultgraph.errors import LimitExceeded
from vaultgraph.lru import Lru
from vaultgraph.schema.extensions.sizes import Sizes, as_integer, size_rule, variables_key

LIMIT_EXCEEDED = LimitExceeded.code
SIZE_ARGUMENTS = ("first", "last", "limit", "maxNodes")
# Fields that run a search where they resolve weigh what the search costs: about 30 ms against 0.17 ms a node of a
# page (measured: 60 notes' `suggestions` 1.8 s, the same page without them 0.01 s), so about 150 nodes. With that
# weight an operation at the cost limit takes about as long whatever it asks for.
SEARCH_COST = 150
CALL_WEIGHTS = {"suggestions": SEARCH_COST}  # one search each time the field resolves (per note)
ITEM_WEIGHTS = {"ghosts": SEARCH_COST}  # one search per item of the list (each ghost's candidates)
WHY = {"suggestions": "runs a similarity search for each note it is asked on",
       "ghosts": "runs a search for each ref's candidates"}

def expanded_size(document: Any) -> int:
    """Fields selected after spreading fragments, computed once per fragment, so a fragment bomb costs linear time."""
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    memo: dict[str, int] = {}

    def size(selection_set: SelectionSetNode | None, path: frozenset[str]) -> int:
        total = 0
        for selection in selection_set.selections if selection_set else ():
            if isinstance(selection, FieldNode):
                total += 1 + size(selection.selection_set, path)
            elif isinstance(selection, InlineFragmentNode):
                total += size(selection.selection_set, path)
            elif isinstance(selection, FragmentSpreadNode):
                name = selection.name.value
                if name in path or name not in fragments:
                    continue  # a cycle or an unknown fragment: other rules report those
                if name not in memo:
                    memo[name] = size(fragments[name].selection_set, path | {name})
                total += memo[name]
        return total

    return sum(size(d.selection_set, frozenset()) for d in document.definitions
               if isinstance(d, OperationDefinitionNode))


def _fields_of(type_: GraphQLNamedType | None) -> Mapping[str, GraphQLField]:
    if isinstance(type_, GraphQLObjectType | GraphQLInterfaceType):
        return cast(Mapping[str, GraphQLField], type_.fields)
    return {}


def cost_rule(max_cost: int, default_page_size: int, variables: Mapping[str, Any] | None,
              sizes: Sizes | None = None) -> type[ValidationRule]:
    """Estimated nodes, as GitHub counts them: each list field sized by `first`, `limit` or `maxNodes` adds the
    product of the sizes on its path (`documents(first: 100) { … backlinks(first: 50) }` = 100 + 100 × 50).
    A size above its bound counts as the bound: the size rule refuses it with its own error, one error, not two."""
    given = dict(variables or {})

    class CostRule(ValidationRule):
        def enter_operation_definition(self, node: OperationDefinitionNode, *_: Any) -> None:
            context = self.context
            schema = context.schema
            document = context.document
            fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
            defaults = {v.variable.name.value: v.default_value for v in node.variable_definitions or ()}
            memo: dict[str, tuple[int, Counter[str]]] = {}

            def size(field: FieldNode, definition: GraphQLField) -> int | None:
                arguments = {a.name.value: a.value for a in field.arguments or ()}
                declared = [name for name in SIZE_ARGUMENTS if name in definition.args]
                # The largest of the sizes the field is given (`last` on a connection paging backward), else its
                # first one's default.
                sized: list[int] = []
                for name in [name for name in declared if name in arguments] or declared[:1]:
                    value: Any = None
                    node_value = arguments.get(name)
                    if isinstance(node_value, IntValueNode):
                        value = int(node_value.value)
                    elif isinstance(node_value, VariableNode):
                        variable = node_value.name.value
                        value = as_integer(given.get(variable))
                        default = defaults.get(variable)
                        if value is None and isinstance(default, IntValueNode):
                            value = int(default.value)
                    if value is None:
                        value = definition.args[name].default_value
                    if not isinstance(value, int) or isinstance(value, bool):
                        value = default_page_size
                    bound = sizes.bound(field.name.value, name) if sizes is not None else None
                    if bound is not None:
                        value = min(value, bound.high)
                    sized.append(max(1, int(value)))
                return max(sized) if sized else None

            def walk(selection_set: SelectionSetNode | None, parent: GraphQLNamedType | None,
                     path: frozenset[str]) -> tuple[int, Counter[str]]:
                """Cost of a selection set at multiplier 1, and the part of it the searching fields weigh (by
                field); cost is linear in the multiplier, so fragments are costed once and scaled."""
                total = 0
                heavy: Counter[str] = Counter()
                for selection in selection_set.selections if selection_set else ():
                    if isinstance(selection, FieldNode):
                        name = selection.name.value
                        definition = _fields_of(parent).get(name)
                        if definition is None:
                            continue  # __typename, or an unknown field that FieldsOnCorrectTypeRule reports
                        factor = size(selection, definition)
                        inner, inner_heavy = walk(selection.selection_set, get_named_type(definition.type), path)
                        per_item = ITEM_WEIGHTS.get(name, 0)
                        call = CALL_WEIGHTS.get(name, 0)
                        if factor is not None:
                            total += call + factor * (1 + per_item + inner)
                            heavy.update({k: v * factor for k, v in inner_heavy.items()})
                        else:
                            total += call + inner
                            heavy.update(inner_heavy)
                        if call or per_item:
                            heavy[name] += call + (factor or 1) * per_item
                    elif isinstance(selection, InlineFragmentNode):
                        condition = selection.type_condition
                        target = schema.get_type(condition.name.value) if condition else parent
                        inner, inner_heavy = walk(selection.selection_set, target, path)
                        total += inner
                        heavy.update(inner_heavy)
                    elif isinstance(selection, FragmentSpreadNode):
                        name = selection.name.value
                        fragment = fragments.get(name)
                        if fragment is None or name in path:
                            continue
                        if name not in memo:
                            memo[name] = walk(fragment.selection_set,
                                              schema.get_type(fragment.type_condition.name.value), path | {name})
                        total += memo[name][0]
                        heavy.update(memo[name][1])
                return total, heavy

            root = schema.get_root_type(node.operation)
            cost, heavy = walk(node.selection_set, root, frozenset())
            if cost > max_cost:
                why = "".join(f" `{name}` {WHY.get(name, 'runs a search')} and counts {weight} of it"
                              f" ({SEARCH_COST} a search);" for name, weight in heavy.most_common())
                context.report_error(GraphQLError(
                    f"this operation would fetch about {cost} nodes; at most {max_cost} are allowed.{why} "
                    "Ask for smaller pages (`first`, `limit`, `maxNodes`) or fewer nested lists.",
                    node, extensions={"code": LIMIT_EXCEEDED, "cost": cost, "limit": max_cost}))
            elif (expanded := expanded_size(document)) > max_cost:
                context.report_error(GraphQLError(
                    f"this document selects {expanded} fields once its fragments are spread; at most {max_cost}.",
                    node, extensions={"code": LIMIT_EXCEEDED, "fields": expanded, "limit": max_cost}))

    return CostRule


RULE_SETS = 256  # distinct variable keys whose rule classes are kept, as many as the validation cache's texts


class CostLimit(AddValidationRules):
    """The cost rule and the size bounds. They read the operation's variables, so their classes are built per
    variable key (`variables_key`: what they read of them), once: building two classes was a tenth of a small
    request's CPU, paid even when the validation cache skips validation. `rule_sets` is shared by a schema's
    operations."""

    def __init__(self, max_cost: int, default_page_size: int, sizes: Sizes | None,
                 rule_sets: Lru[Hashable, list[type[ASTValidationRule]]]) -> None:
        super().__init__([])
        self.max_cost = max_cost
        self.default_page_size = default_page_size
        self.sizes = sizes
        self.rule_sets = rule_sets

    def on_operation(self) -> Iterator[None]:
        variables = self.execution_context.variables
        key = variables_key(variables)
        rules = self.rule_sets.get(key)
        if rules is None:
            rules = [cost_rule(self.max_cost, self.default_page_size, variables, self.sizes)]
            if self.sizes is not None:
                rules.append(size_rule(self.sizes, variables))
            self.rule_sets.put(key, rules)
        self.validation_rules = rules
        yield from super().on_operation()
