"""The facts the hotkeys family asks: default key bindings as their own documentation states them (GNU readline's
emacs mode as bash ships it, the terminal's stty defaults, tmux with its default prefix, less, Vim's normal mode,
GNU nano, GNOME, and the shortcuts Chrome and Firefox share). Only bindings that are the documented default and
mean one thing are here: a binding that changed between versions (nano's search and undo keys), that differs
between the two browsers (private windows) or that a common setting takes over (Ctrl+S under flow control) is
left out rather than guessed.

A deck is one fixed list of labels and the facts whose answers are those labels. In a "keys" deck the labels are
keys and a trial names the action (an infinitive phrase); in an "actions" deck the labels are actions and a trial
names the key (written as the prompt shows it). Every label of a deck is the answer to exactly one fact, so each
label, and each position in the list, is right equally often: the most common label and the first label are a
chance guess. The other labels of a deck are real bindings of the same program, so they are the plausible wrong
answers. No two labels of a deck fit one question (the Up arrow is never beside Ctrl+P, nor F5 beside Ctrl+R).

Labels are chosen so that counting them in the text says nothing: no label is inside another (Ctrl+T beside
Ctrl+Tab would be), and single-letter keys (Vim's `u`, less's `q`), which any English text contains, are only ever
asked in the actions direction."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Deck:
    name: str
    where: tuple[str, ...]  # the program and its default settings, said a few ways (lower case, mid-sentence)
    direction: str  # "keys": labels are keys, a trial names an action; "actions": labels are actions
    facts: tuple[tuple[str, str], ...]  # keys: (key label, action to do); actions: (key as shown, action label)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(f[0] if self.direction == "keys" else f[1] for f in self.facts)


BASH = ("in bash with its default emacs-style line editing", "at a bash prompt using readline's default key bindings",
        "while typing a command in bash (default emacs editing mode)")
TERMINAL = ("in a Linux terminal running bash, with the terminal's default stty settings",
            "at a bash prompt in a terminal whose settings were never changed")
TMUX = ("in tmux with the default prefix key (Ctrl+B)",
        "inside a tmux session that still uses the stock prefix (Ctrl+B)")
LESS = ("while reading a file in the less pager", "in the less pager (default keys)", "when viewing output in less")
VIM = ("in Vim's normal mode", "in Vim (normal mode, default settings)", "with Vim in normal mode")
NANO = ("in GNU nano with its default key bindings", "while editing a file in nano (default keys)")
GNOME = ("on a standard GNOME desktop with the default keyboard shortcuts",
         "in GNOME (default shortcuts, as Ubuntu and Fedora ship them)")
BROWSER = ("in Chrome or Firefox on Linux or Windows, with default shortcuts",
           "in a desktop web browser (Chrome or Firefox, default shortcuts)")

DECKS = (
    Deck("bash_motion", BASH, "keys", (
        ("Ctrl+A", "move the cursor to the very start of the command line"),
        ("Ctrl+E", "move the cursor to the end of the command line"),
        ("Alt+B", "move the cursor back by one word"),
        ("Alt+F", "move the cursor forward by one word"),
        ("Ctrl+R", "search backwards through the command history, narrowing the match as you type"),
        ("Ctrl+P", "bring back the previous command from the history, just as the Up arrow does"))),
    Deck("bash_kill", BASH, "keys", (
        ("Ctrl+W", "delete the word just before the cursor"),
        ("Ctrl+U", "delete everything from the cursor back to the start of the line"),
        ("Ctrl+K", "delete everything from the cursor to the end of the line"),
        ("Ctrl+Y", "paste back the text most recently removed by one of those deleting keys"),
        ("Alt+D", "delete from the cursor to the end of the current word"),
        ("Ctrl+T", "swap the character before the cursor with the one under it"))),
    Deck("bash_more", BASH, "actions", (
        ("Ctrl+L", "clear_screen"),
        ("Alt+. (Alt and the full stop)", "insert_last_argument"),
        ("Ctrl+X followed by Ctrl+E", "open_line_in_editor"),
        ("Alt+U", "uppercase_word"),
        ("Alt+C", "capitalize_word"),
        ("Ctrl+_ (Ctrl and the underscore)", "undo_last_edit"))),
    Deck("terminal", TERMINAL, "actions", (
        ("Ctrl+C while a program runs in the foreground", "interrupt_program"),
        ("Ctrl+Z while a program runs in the foreground", "suspend_program"),
        ("Ctrl+D on an empty command line", "end_input_and_exit"),
        ("Ctrl+\\ (Ctrl and the backslash) while a program runs in the foreground", "send_quit_signal"))),
    Deck("tmux_keys", TMUX, "keys", (
        ("Ctrl+B c", "create a new window"),
        ("Ctrl+B %", "split the current pane into a left and a right pane"),
        ("Ctrl+B d", "detach from the session and leave it running"),
        ("Ctrl+B n", "switch to the next window"),
        ("Ctrl+B z", "zoom the current pane to fill the whole window, and back"),
        ("Ctrl+B [", "enter copy mode to scroll back through earlier output"))),
    Deck("tmux_panes", TMUX, "actions", (
        ('the prefix followed by " (double quote)', "split_pane_top_bottom"),
        ("the prefix followed by p", "previous_window"),
        ("the prefix followed by x", "kill_current_pane"),
        ("the prefix followed by & (ampersand)", "kill_current_window"))),
    Deck("tmux_names", TMUX, "actions", (
        ("the prefix followed by , (comma)", "rename_window"),
        ("the prefix followed by $ (dollar sign)", "rename_session"),
        ("the prefix followed by ? (question mark)", "list_key_bindings"),
        ("the prefix followed by w", "choose_window_from_list"))),
    Deck("less_move", LESS, "actions", (
        ("q", "quit_pager"),
        ("capital G (Shift+G)", "go_to_end_of_file"),
        ("lower-case g", "go_to_start_of_file"),
        ("/ followed by a pattern and Enter", "search_forward"),
        ("? followed by a pattern and Enter", "search_backward"),
        ("capital N (Shift+N) after a search made with /", "previous_match"))),
    Deck("less_pages", LESS, "actions", (
        ("lower-case n after a search", "next_match"),
        ("capital F (Shift+F)", "follow_growing_file"),
        ("lower-case b", "back_one_screen"),
        ("the space bar", "forward_one_screen"))),
    Deck("vim_keys", VIM, "keys", (
        ("dd", "delete (cut) the whole current line"),
        ("yy", "copy (yank) the whole current line"),
        ("gg", "jump to the first line of the file"),
        ("dw", "delete from the cursor up to the start of the next word"),
        (">>", "shift the current line one indent level to the right"),
        ("Ctrl+R", "redo a change that was just undone"))),
    Deck("vim_edit", VIM, "actions", (
        ("lower-case u", "undo_last_change"),
        ("lower-case x", "delete_character_under_cursor"),
        ("lower-case p", "paste_after_cursor"),
        ("lower-case o", "open_new_line_below"),
        ("capital A (Shift+A)", "append_at_end_of_line"))),
    Deck("vim_jump", VIM, "actions", (
        ("% (percent sign)", "jump_to_matching_bracket"),
        (". (full stop)", "repeat_last_change"),
        ("capital J (Shift+J)", "join_with_next_line"),
        ("* (asterisk)", "search_word_under_cursor"),
        ("~ (tilde)", "toggle_character_case"))),
    Deck("nano_keys", NANO, "keys", (
        ("Ctrl+O", "write the file to disk (save it)"),
        ("Ctrl+X", "exit the editor"),
        ("Ctrl+W", "search for a piece of text"),
        ("Ctrl+K", "cut the current line"),
        ("Ctrl+U", "paste the text that was cut"),
        ("Ctrl+G", "show the built-in help"))),
    Deck("gnome_keys", GNOME, "keys", (
        ("Super+H", "hide (minimise) the focused window"),
        ("Alt+Tab", "switch between running applications"),
        ("Super+L", "lock the screen"),
        ("Alt+F2", "open the prompt for running a command"),
        ("Super+A", "show the grid of all installed applications"),
        ("Alt+F4", "close the focused window"))),
    Deck("browser_keys", BROWSER, "keys", (
        ("Ctrl+T", "open a new tab"),
        ("Ctrl+Shift+T", "reopen the tab that was closed most recently"),
        ("Ctrl+W", "close the current tab"),
        ("Ctrl+L", "put the focus in the address bar with the address selected"),
        ("Ctrl+D", "bookmark the current page"),
        ("Ctrl+F", "find text on the current page"))),
)
