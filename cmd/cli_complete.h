/*
 * cli_complete.h - a tool's shell completion (--completion
 * bash|zsh|fish), written from the tables that the option loop and
 * --help use: the short option string, the long options, the help lines
 * (the descriptions), and the values each option takes (the strategy
 * table, the border names, the output formats, and the tool's own, from
 * struct cli_tool's complete).  make install installs what it prints, so
 * a new option is completed without a word here.  Kept apart from
 * cli.c's option loop.
 */
#ifndef GF_CLI_COMPLETE_H
#define GF_CLI_COMPLETE_H

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "img.h"
#include "opts.h"
#include "strategy.h"

/* The shells --completion writes for. */
#define COMPLETE_SHELLS "bash zsh fish"

/*
 * One option: its letter (0: none), its long name (NULL: none), whether
 * it takes a value, and the values to offer (blank-separated; "" when
 * they are not known: a file name, a number).
 */
struct complete_opt {
	int letter;
	const char *name;
	int has_arg;
	int code;               /* what getopt_long returns for it */
	char words[512];
};

/*
 * The options of shortopts (getopt style) and longopts into o (room for
 * max), a letter and the long option of the same code as one: the count.
 */
static inline int
complete_opts(const char *shortopts, const struct option *longopts,
    struct complete_opt *o, int max)
{
	int n = 0;

	for (const char *s = shortopts; *s != '\0' && n < max; s++) {
		if (*s == ':')
			continue;
		o[n] = (struct complete_opt){*s, NULL, s[1] == ':', *s, ""};
		for (const struct option *l = longopts; l->name != NULL; l++)
			if (l->val == *s)
				o[n].name = l->name;
		n++;
	}
	for (const struct option *l = longopts; l->name != NULL && n < max; l++)
		if (l->val > 255)       /* no letter: a long option alone */
			o[n++] = (struct complete_opt){0, l->name,
			    l->has_arg != no_argument, l->val, ""};
	return n;
}

/*
 * The values of a shared option of getopt code c, blank-separated, in w
 * (n bytes): 1 with words there, 0 when they are not known.
 * completion_code is the code of --completion.
 */
static inline int
complete_words(int c, int completion_code, char *w, size_t n)
{
	const char *const *names = gf_border_names;
	int count = GF_NBORDERS;
	size_t len = 0;

	w[0] = '\0';
	if (c == 'f') {
		img_format_words(w, n);
		return 1;
	}
	if (c == completion_code) {
		snprintf(w, n, "%s", COMPLETE_SHELLS);
		return 1;
	}
	if (c != 'm' && c != GF_OPT_BORDER)
		return 0;
	if (c == 'm')
		count = GF_NSTRATEGIES;
	for (int i = 0; i < count && len < n; i++)
		len += (size_t)snprintf(w + len, n - len, "%s%s", i ? " " : "",
		    c == 'm' ? gf_strategies[i].name : names[i]);
	return 1;
}

/* "-m|--name" (bash: a case pattern) or "-m" or "--name", on f. */
static inline void
complete_name(FILE *f, const struct complete_opt *o, const char *or)
{
	if (o->letter)
		fprintf(f, "-%c%s", o->letter, o->name ? or : "");
	if (o->name && (!o->letter || or[0] != '\0'))
		fprintf(f, "--%s", o->name);
}

/* The bash completion function of tool prog, and its complete command. */
static inline void
complete_bash(FILE *f, const char *prog, const struct complete_opt *o, int n)
{
	fprintf(f, "# bash completion for %s (gpufilt): %s --completion bash\n"
	    "_gpufilt_%s()\n{\n\tlocal cur=${COMP_WORDS[COMP_CWORD]}\n"
	    "\tlocal prev=${COMP_WORDS[COMP_CWORD-1]}\n\n\tcase $prev in\n",
	    prog, prog, prog);
	for (int i = 0; i < n; i++) {
		if (!o[i].has_arg)
			continue;
		fputc('\t', f);
		complete_name(f, &o[i], "|");
		if (o[i].words[0] != '\0')
			fprintf(f, ") COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))",
			    o[i].words);
		else if (o[i].code == 'o')
			fputs(") COMPREPLY=($(compgen -d -- \"$cur\"))", f);
		else
			fputs(") COMPREPLY=()", f);
		/* A value that ends in ':' (gauss:) goes on: no space after it. */
		if (strchr(o[i].words, ':') != NULL)
			fputs("\n\t\t[[ ${COMPREPLY[0]} == *: ]] && "
			    "compopt -o nospace 2>/dev/null", f);
		fputs("; return 0 ;;\n", f);
	}
	fputs("\tesac\n\tif [[ $cur == -* ]]; then\n\t\tlocal opts=\"", f);
	for (int i = 0; i < n; i++) {
		fputs(i ? " " : "", f);
		complete_name(f, &o[i], " ");
	}
	fputs("\"\n\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n\telse\n"
	    "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\tfi\n}\n", f);
	fprintf(f, "complete -o filenames -F _gpufilt_%s %s\n", prog, prog);
}

/* The help line's text column: where descriptions start. */
#define COMPLETE_TEXT_COL 18

/*
 * The description of option word (-m, --rows) from the help lines, in d
 * (n bytes): for an option of the option column, the text column of its
 * line up to a second option on it (";  --rows N  ...") and the
 * continuation lines below; for an option named on a line's text
 * column after ";  " (--rows), the text after its value up to the next
 * ";  ".  Blanks are squeezed to one.  "" if no line names it.
 */
static inline void
complete_describe(char *d, size_t n, const char *help, const char *word)
{
	size_t wn = strlen(word), len = 0;
	const char *from = NULL, *l;

	d[0] = '\0';
	for (l = help; *l != '\0' && from == NULL; l += strcspn(l, "\n") + 1) {
		size_t ll = strcspn(l, "\n");
		for (const char *w = l; w + wn <= l + ll && from == NULL; w++) {
			if (strncmp(w, word, wn) != 0 || (w > l && w[-1] != ' ') ||
			    strchr(" ,\n", w[wn]) == NULL || ll <= COMPLETE_TEXT_COL)
				continue;
			if (w < l + COMPLETE_TEXT_COL)
				from = l + COMPLETE_TEXT_COL;
			else if ((from = strstr(w, "  ")) == NULL || from > l + ll)
				from = l + COMPLETE_TEXT_COL;   /* "; --cpu = -m cpu" */
		}
		if (l[ll] == '\0')
			break;
	}
	for (const char *p = from; p != NULL && *p != '\0' && len + 1 < n; p++) {
		if (strncmp(p, ";  ", 3) == 0)
			break;
		if (*p == '\n' && strspn(p + 1, " ") < COMPLETE_TEXT_COL)
			break;
		if ((*p == ' ' || *p == '\n') && (len == 0 || d[len - 1] == ' '))
			continue;
		d[len++] = *p == '\n' ? ' ' : *p;
	}
	while (len > 0 && d[len - 1] == ' ')
		len--;
	d[len] = '\0';
}

/*
 * Description s on f inside the shell's single quotes: a quote as
 * quote (zsh: '\'' closes, escapes and reopens; fish: \'), a backslash
 * doubled (both unescape it); for zsh, whose _arguments ends a
 * description at ']', brackets as parentheses.
 */
static inline void
complete_put(FILE *f, const char *s, int zsh)
{
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			fputs(zsh ? "'\\''" : "\\'", f);
		else if (*s == '\\')
			fputs("\\\\", f);
		else if (zsh && (*s == '[' || *s == ']'))
			fputc(*s == '[' ? '(' : ')', f);
		else
			fputc(*s, f);
	}
}

/* One _arguments spec of o: option, description, value, on f. */
static inline void
complete_zsh_spec(FILE *f, const struct complete_opt *o, const char *help,
    int letter)
{
	char word[64], d[512];

	if (letter)
		snprintf(word, sizeof(word), "-%c", o->letter);
	else
		snprintf(word, sizeof(word), "--%s", o->name);
	fprintf(f, "\t'%s%s[", word, !o->has_arg ? "" : letter ? "+" : "=");
	complete_describe(d, sizeof(d), help, word);
	complete_put(f, d, 1);
	fputc(']', f);
	if (o->words[0] != '\0') {
		/* A value's ':' (gauss:) would end the action: escaped. */
		fputs(":value:(", f);
		for (const char *w = o->words; *w != '\0'; w++)
			fprintf(f, "%s%c", *w == ':' ? "\\" : "", *w);
		fputc(')', f);
	} else if (o->code == 'o')
		fputs(":directory:_files -/", f);
	else if (o->has_arg)
		fputs(":value: ", f);
	fputs("' \\\n", f);
}

/* The zsh completion function of tool prog (_prog in $fpath). */
static inline void
complete_zsh(FILE *f, const char *prog, const struct complete_opt *o, int n,
    const char *help)
{
	fprintf(f, "#compdef %s\n# zsh completion for %s (gpufilt): %s "
	    "--completion zsh\n_arguments -s -S \\\n", prog, prog, prog);
	for (int i = 0; i < n; i++) {
		if (o[i].letter)
			complete_zsh_spec(f, &o[i], help, 1);
		if (o[i].name)
			complete_zsh_spec(f, &o[i], help, 0);
	}
	fputs("\t'*:file:_files'\n", f);
}

/*
 * The fish completion of tool prog (prog.fish in a completions
 * directory): a complete command per option, with its description and
 * its values; operands are files, as fish completes by default.
 */
static inline void
complete_fish(FILE *f, const char *prog, const struct complete_opt *o, int n,
    const char *help)
{
	char word[64], d[512];

	fprintf(f, "# fish completion for %s (gpufilt): %s --completion fish\n",
	    prog, prog);
	for (int i = 0; i < n; i++) {
		fprintf(f, "complete -c %s", prog);
		if (o[i].letter)
			fprintf(f, " -s %c", o[i].letter);
		if (o[i].name)
			fprintf(f, " -l %s", o[i].name);
		if (o[i].words[0] != '\0')
			fprintf(f, " -x -a '%s'", o[i].words);
		else if (o[i].code == 'o')
			fputs(" -x -a '(__fish_complete_directories)'", f);
		else if (o[i].has_arg)
			fputs(" -r", f);
		if (o[i].letter)
			snprintf(word, sizeof(word), "-%c", o[i].letter);
		else
			snprintf(word, sizeof(word), "--%s", o[i].name);
		complete_describe(d, sizeof(d), help, word);
		fputs(" -d '", f);
		complete_put(f, d, 0);
		fputs("'\n", f);
	}
}

#endif
