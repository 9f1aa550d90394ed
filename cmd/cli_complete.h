/*
 * cli_complete.h - a tool's shell completion (the hidden option
 * --completion bash|zsh), written from the tables that the option loop
 * and --help use: the short option string, the long options, the help
 * lines (zsh's descriptions), the strategy table and the border names.
 * make install installs what it prints, so a new option is completed
 * without a word here.  Kept apart from cli.c's option loop.
 */
#ifndef GF_CLI_COMPLETE_H
#define GF_CLI_COMPLETE_H

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "opts.h"
#include "strategy.h"

/* One option: its letter (0: none), its long name (NULL: none), its value. */
struct complete_opt {
	int letter;
	const char *name;
	int has_arg;
	int code;               /* what getopt_long returns for it */
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
		o[n] = (struct complete_opt){*s, NULL, s[1] == ':', *s};
		for (const struct option *l = longopts; l->name != NULL; l++)
			if (l->val == *s)
				o[n].name = l->name;
		n++;
	}
	for (const struct option *l = longopts; l->name != NULL && n < max; l++)
		if (l->val > 255)       /* no letter: a long option alone */
			o[n++] = (struct complete_opt){0, l->name,
			    l->has_arg != no_argument, l->val};
	return n;
}

/*
 * The values of the option of getopt code c, separated by blanks, in w
 * (n bytes): 1 with words there, 0 when they are not known.
 */
static inline int
complete_words(int c, char *w, size_t n)
{
	const char *const *names = gf_border_names;
	int count = GF_NBORDERS;
	size_t len = 0;

	w[0] = '\0';
	if (c == 'f') {
		snprintf(w, n, "pnm png jpeg tiff webp");
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
	char w[256];

	fprintf(f, "# bash completion for %s (gpufilt): %s --completion bash\n"
	    "_gpufilt_%s()\n{\n\tlocal cur=${COMP_WORDS[COMP_CWORD]}\n"
	    "\tlocal prev=${COMP_WORDS[COMP_CWORD-1]}\n\n\tcase $prev in\n",
	    prog, prog, prog);
	for (int i = 0; i < n; i++) {
		if (!o[i].has_arg)
			continue;
		fputc('\t', f);
		complete_name(f, &o[i], "|");
		if (complete_words(o[i].code, w, sizeof(w)))
			fprintf(f, ") COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))", w);
		else if (o[i].code == 'o')
			fputs(") COMPREPLY=($(compgen -d -- \"$cur\"))", f);
		else
			fputs(") COMPREPLY=()", f);
		fputs("; return ;;\n", f);
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

/*
 * The description of option word (-m, --rows) for zsh, on f: the text
 * column of the first help line that names it, without the characters
 * zsh's specs reserve.
 */
static inline void
complete_describe(FILE *f, const char *help, const char *word)
{
	size_t n = strlen(word);

	for (const char *l = help; *l != '\0'; l += strcspn(l, "\n") + 1) {
		size_t len = strcspn(l, "\n");
		for (const char *w = l; w + n <= l + len; w++) {
			if (strncmp(w, word, n) != 0 || (w > l && w[-1] != ' ') ||
			    strchr(" ,\n", w[n]) == NULL || len <= 18)
				continue;
			for (const char *d = l + 18; d < l + len; d++)
				if (strchr("[]:'\\", *d) == NULL)
					fputc(*d, f);
			return;
		}
		if (l[len] == '\0')
			return;
	}
}

/* One _arguments spec of o: option, description, value, on f. */
static inline void
complete_zsh_spec(FILE *f, const struct complete_opt *o, const char *help,
    int letter)
{
	char w[256], word[64];

	if (letter)
		snprintf(word, sizeof(word), "-%c", o->letter);
	else
		snprintf(word, sizeof(word), "--%s", o->name);
	fprintf(f, "\t'%s%s[", word, !o->has_arg ? "" : letter ? "+" : "=");
	complete_describe(f, help, word);
	fputc(']', f);
	if (complete_words(o->code, w, sizeof(w)))
		fprintf(f, ":value:(%s)", w);
	else if (o->code == 'o')
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

#endif
