"""The skeleton every game's table picture shares, written once: its public functions' shape (a view,
the names, the theme, the words and the cards' look), the words with their defaults, the seats' names
read from the view, and the PNG form of a picture.

A game's picture module says what it reads from a view (its ``_read``, into a table of its own) and
draws; this module makes its public functions from that:

- :meth:`TablePicture.table` makes ``table_image(view, names=None, theme="dark", labels=None,
  cards="classic")`` from a drawer of the table read once;
- :meth:`TablePicture.private` makes the same with a ``seat`` after the view, for one seat's private
  panel (a seat the table has not is refused);
- :func:`png_of` makes ``render_table`` / ``render_<private>`` from those: the same arguments, PNG
  bytes, a module-level function of the game's picture module (the picture workers pickle it by name).

What stays each game's own: what it reads from the view (and checks), its layout and everything it
draws (its cards, piles, panels and status), and which of a seat's cards its private picture shows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, ParamSpec, Protocol, TypeVar

from PIL import Image

from bot.render.images import Theme, encode_png, one_line_name, picture_name, theme_named


class Seated(Protocol):
    """What a game's reading of a view has at least: a name per seat."""

    @property
    def names(self) -> Sequence[str]: ...


T = TypeVar("T", bound=Seated)
P = ParamSpec("P")

# A game's reading of a view: (view, names by seat or None for the view's players, the words) -> its table.
Reader = Callable[[Mapping[str, Any], Sequence[str] | None, Mapping[str, str]], T]


def with_defaults(defaults: Mapping[str, str], labels: Mapping[str, str] | None) -> Mapping[str, str]:
    """The words a picture draws: ``labels`` (a language's) over the English ``defaults``."""
    return {**defaults, **labels} if labels else defaults


def seat_names(
    view: Mapping[str, Any], names: Sequence[str] | None, labels: Mapping[str, str]
) -> tuple[list[str], list[tuple[str, str]]]:
    """Each seat's name on one line (for sentences) and as a panel's header (the name and a second
    line: a computer's level), from ``names`` or else the view's players; a seat without a name is
    "#<seat + 1>". A name per player, or ValueError."""
    players = view["players"]
    given = names if names is not None else players
    headers = [picture_name(name, labels) for name in given]
    headers = [(first or f"#{seat + 1}", second) for seat, (first, second) in enumerate(headers)]
    shown = [one_line_name(name, labels) or f"#{seat + 1}" for seat, name in enumerate(given)]
    if len(shown) != len(players):
        raise ValueError(f"{len(shown)} names for {len(players)} players")
    return shown, headers


class TablePicture(Generic[T]):
    """A game's picture: its English words (``DEFAULT_LABELS``) and its reading of a view; its
    :meth:`table` and :meth:`private` make the public picture functions from its drawers."""

    def __init__(self, defaults: Mapping[str, str], read: Reader[T]) -> None:
        self.defaults, self.read = defaults, read

    def scene(
        self,
        view: Mapping[str, Any],
        names: Sequence[str] | None,
        theme: str,
        labels: Mapping[str, str] | None,
        cards: str,
    ) -> tuple[T, Theme, Mapping[str, str]]:
        """The game's table read from ``view``, the theme with its cards, the words."""
        look = theme_named(theme, cards)
        words = with_defaults(self.defaults, labels)
        return self.read(view, names, words), look, words

    def table(self, draw: Callable[[T, Theme, Mapping[str, str]], Image.Image]) -> TableImage[T]:
        """``draw(table, theme, words)`` as a picture of a view (see :class:`TableImage`)."""
        return TableImage(self, draw)

    def private(
        self, draw: Callable[[T, int, Theme, Mapping[str, str], Mapping[str, Any]], Image.Image]
    ) -> PrivateImage[T]:
        """``draw(table, seat, theme, words, view)`` as one seat's picture (see :class:`PrivateImage`)."""
        return PrivateImage(self, draw)


class _Drawer(Generic[T]):
    """A picture function of a game's picture module: it bears its drawer's name and docstring."""

    def __init__(self, picture: TablePicture[T], draw: Callable[..., Image.Image]) -> None:
        self.picture, self.draw = picture, draw
        self.__module__, self.__name__, self.__qualname__ = draw.__module__, draw.__name__, draw.__qualname__
        self.__doc__ = draw.__doc__


class TableImage(_Drawer[T]):
    """A game's whole table, as a spectator sees it, as a palette image."""

    def __call__(
        self,
        view: Mapping[str, Any],
        names: Sequence[str] | None = None,
        theme: str = "dark",
        labels: Mapping[str, str] | None = None,
        cards: str = "classic",
    ) -> Image.Image:
        return self.draw(*self.picture.scene(view, names, theme, labels, cards))


class PrivateImage(_Drawer[T]):
    """One seat's private picture, as a palette image; a seat the table has not raises ValueError."""

    def __call__(
        self,
        view: Mapping[str, Any],
        seat: int,
        names: Sequence[str] | None = None,
        theme: str = "dark",
        labels: Mapping[str, str] | None = None,
        cards: str = "classic",
    ) -> Image.Image:
        table, look, words = self.picture.scene(view, names, theme, labels, cards)
        if not (isinstance(seat, int) and 0 <= seat < len(table.names)):
            raise ValueError(f"no seat {seat!r} at a table of {len(table.names)}")
        return self.draw(table, seat, look, words, view)


def png_of(draw: Callable[P, Image.Image], name: str) -> Callable[P, bytes]:
    """``draw``'s picture as PNG bytes, with the same arguments: a function ``name`` of ``draw``'s
    module (it must be bound to that name there: the picture workers pickle it by name)."""

    def render(*args: P.args, **kwargs: P.kwargs) -> bytes:
        return encode_png(draw(*args, **kwargs))

    render.__module__ = draw.__module__
    render.__name__ = render.__qualname__ = name
    render.__doc__ = f"The PNG of :func:`{draw.__name__}`: the same arguments, the picture's bytes."
    return render
