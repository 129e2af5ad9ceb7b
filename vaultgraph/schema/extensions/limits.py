"""API limits as schema extensions: strawberry's own where it has one, the cost rule (cost.py) where it has none.

Every refusal happens before execution (parse or validation), so a refused operation changes nothing, and it
answers `extensions.code: LIMIT_EXCEEDED` (introspection off: `FORBIDDEN`; a size argument out of its bound:
`INVALID_INPUT` naming it, as its service would, schema/extensions/sizes.py)."""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any

from graphql import (
    ASTValidationRule,
    GraphQLError,
    GraphQLSyntaxError,
    SelectionSetNode,
    ValidationContext,
    ValidationRule,
)
from graphql.validation import NoSchemaIntrospectionCustomRule
from strawberry.extensions import (
    AddValidationRules,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    QueryDepthLimiter,
    SchemaExtension,
)

from vaultgraph.config import Settings
from vaultgraph.errors import LimitExceeded
from vaultgraph.lru import Lru
from vaultgraph.schema.extensions.cost import RULE_SETS, CostLimit, expanded_size
from vaultgraph.schema.extensions.input_text import UnicodeVariables
from vaultgraph.schema.extensions.sizes import Sizes
from vaultgraph.services.pagination import DEFAULT_PAGE_SIZE

LIMIT_EXCEEDED = LimitExceeded.code
TOKEN_ERROR = re.compile(r"(Document|Source) contains more than \d+ (tokens|code points)|nested too deeply")
SUGGESTION = re.compile(r"\s*Did you mean .*\?\s*$", re.DOTALL)

ExtensionFactory = Callable[[], SchemaExtension]


@dataclass(frozen=True, slots=True)
class Limits:
    """The knobs, taken from Settings by the composition root."""

    max_depth: int = 10
    max_aliases: int = 15
    max_tokens: int = 2000
    max_cost: int = 10_000
    default_page_size: int = 20
    page_size_max: int = 100
    introspection: bool = True
    suggestions: bool = False

    @classmethod
    def from_settings(cls, settings: Settings) -> Limits:
        return cls(
            max_depth=settings.max_query_depth, max_aliases=settings.max_aliases, max_tokens=settings.max_tokens,
            max_cost=settings.max_query_cost, default_page_size=min(DEFAULT_PAGE_SIZE, settings.page_size_max),
            page_size_max=settings.page_size_max, introspection=settings.introspection,
            suggestions=settings.graphql_suggestions,
        )


# --- codes on strawberry's own rules -------------------------------------------------------------------------------


class _CodedContext:
    """A ValidationContext whose reported errors carry a code; everything else goes to the real one."""

    def __init__(self, context: ValidationContext, code: str) -> None:
        self._context = context
        self._code = code

    def report_error(self, error: GraphQLError) -> None:
        error.extensions = {**(error.extensions or {}), "code": self._code}
        self._context.report_error(error)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


def coded(rule: type[ASTValidationRule], code: str, budget: int | None = None) -> type[ValidationRule]:
    """`rule`, with its errors carrying `code`. With a `budget`, the rule is skipped for documents whose fragments
    expand beyond it: strawberry's depth and alias walks spread fragments without memo (exponential on a fragment
    bomb), and the cost rule refuses those documents anyway."""

    class Coded(rule):  # type: ignore[valid-type, misc]
        def __init__(self, context: ValidationContext) -> None:
            if budget is not None and expanded_size(context.document) > budget:
                ValidationRule.__init__(self, context)
                return
            try:
                super().__init__(_CodedContext(context, code))
            except (KeyError, ValueError):
                # An unknown fragment (KnownFragmentNamesRule reports it) or an empty selection set, whose depth is
                # the max() of nothing (NonEmptySelections reports it): an invalid document never runs.
                ValidationRule.__init__(self, context)

    Coded.__name__ = f"Coded{rule.__name__}"
    return Coded


class NonEmptySelections(ValidationRule):
    """`{ }` is not GraphQL (a selection set holds at least one selection) but graphql-core parses it: refused."""

    def enter_selection_set(self, node: SelectionSetNode, *_args: Any) -> None:
        if not node.selections:
            self.report_error(GraphQLError("a selection set needs at least one field", node))


def _with_code(extension: AddValidationRules, code: str, budget: int | None = None) -> list[type[ASTValidationRule]]:
    """The extension's rules, each with its errors carrying `code` (see `coded`)."""
    return [coded(rule, code, budget) for rule in extension.validation_rules]


class TokenLimit(MaxTokensLimiter):
    """strawberry's token cap; the parser's refusal gets `LIMIT_EXCEEDED` (it has no code of its own)."""

    def on_parse(self) -> Iterator[None]:
        yield
        for error in self.execution_context.pre_execution_errors or ():
            if isinstance(error, GraphQLSyntaxError) and TOKEN_ERROR.search(error.message):
                error.extensions = {**(error.extensions or {}), "code": LIMIT_EXCEEDED}


class HideSuggestions(SchemaExtension):
    """Drops graphql-core's "Did you mean …?" from request errors (parse, validation, variable coercion: the ones
    without a path): with introspection off they would leak the schema one guess at a time. Errors that resolvers
    raise (they have a path) are answers of the application and left alone."""

    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        for error in getattr(result, "errors", None) or ():
            if error.path is None and "Did you mean" in error.message:
                error.message = SUGGESTION.sub("", error.message)


def limit_extensions(limits: Limits) -> list[ExtensionFactory]:
    """Factories, not instances: strawberry builds each extension afresh per operation (instances are shared
    state across concurrent requests, and deprecated since 0.340)."""
    budget = limits.max_cost
    sizes = Sizes.for_page_size(limits.page_size_max)
    # The rules that do not read the operation are built once here: building them per operation (strawberry's
    # limiters make a rule class in their constructor, `coded` another) was a tenth of a `{ __typename }`
    # request, paid even when the validation cache (schema/extensions/document_cache.py) skips validation.
    shape_rules: list[type[ASTValidationRule]] = [NonEmptySelections,
                   *_with_code(QueryDepthLimiter(max_depth=limits.max_depth), LIMIT_EXCEEDED, budget),
                   *_with_code(MaxAliasesLimiter(max_alias_count=limits.max_aliases), LIMIT_EXCEEDED, budget)]
    rule_sets: Lru[Hashable, list[type[ASTValidationRule]]] = Lru(RULE_SETS)  # the cost rules, per variable key
    factories: list[ExtensionFactory] = [
        UnicodeVariables,  # first: before the validation cache (schema/extensions/input_text.py)
        lambda: TokenLimit(max_token_count=limits.max_tokens),
        lambda: AddValidationRules(shape_rules),
        lambda: CostLimit(limits.max_cost, limits.default_page_size, sizes, rule_sets),
    ]
    if not limits.introspection:
        introspection_rules: list[type[ASTValidationRule]] = [coded(NoSchemaIntrospectionCustomRule, "FORBIDDEN")]
        factories.append(lambda: AddValidationRules(introspection_rules))
    if not limits.suggestions or not limits.introspection:
        factories.append(HideSuggestions)
    return factories
