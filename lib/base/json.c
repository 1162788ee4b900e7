/* json.c: a strict, bounded JSON reader for container runtimes' state files: string values and object ends, with their keys. */
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

/*
 * Strict RFC 8259: what a runtime writes is JSON, so anything else (a
 * truncated file, a trailing comma) is refused rather than guessed at. The
 * depth is bounded so a hostile file cannot exhaust the stack; strings are
 * decoded (\uXXXX and surrogate pairs to UTF-8), and one holding a NUL
 * (\u0000) is refused: no name memcgctl resolves can hold one.
 */
struct js {
	const char *p, *end;
	mcg__json_fn fn;
	void *data;
	const char *keys[MCG__JSON_DEPTH_MAX];
	char keybuf[MCG__JSON_DEPTH_MAX][MCG__JSON_KEY_MAX + 1];
	size_t depth;
	char *str; /* the decoded string; as long as the document at most */
	size_t slen;
};

static void ws(struct js *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int hex4(const char *p, unsigned *ret)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -EINVAL;
	}
	*ret = v;
	return 0;
}

static void put_utf8(struct js *j, unsigned cp)
{
	char *o = j->str + j->slen;

	if (cp < 0x80) {
		o[0] = (char)cp;
		j->slen += 1;
	} else if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		j->slen += 2;
	} else if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		j->slen += 3;
	} else {
		o[0] = (char)(0xf0 | (cp >> 18));
		o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[3] = (char)(0x80 | (cp & 0x3f));
		j->slen += 4;
	}
}

/* A string at j->p (the opening quote) decoded into j->str; j->slen its length. */
static int string(struct js *j)
{
	j->slen = 0;
	if (j->p >= j->end || *j->p != '"')
		return -EINVAL;
	j->p++;
	/* every escape decodes to no more bytes than it takes: str needs the document's length */
	while (j->p < j->end) {
		unsigned char c = (unsigned char)*j->p++;
		unsigned cp, lo;

		if (c == '"') {
			j->str[j->slen] = '\0';
			return 0;
		}
		if (c < 0x20)
			return -EINVAL;
		if (c != '\\') {
			j->str[j->slen++] = (char)c;
			continue;
		}
		if (j->p >= j->end)
			return -EINVAL;
		c = (unsigned char)*j->p++;
		switch (c) {
		case '"': case '\\': case '/':
			j->str[j->slen++] = (char)c;
			break;
		case 'b': j->str[j->slen++] = '\b'; break;
		case 'f': j->str[j->slen++] = '\f'; break;
		case 'n': j->str[j->slen++] = '\n'; break;
		case 'r': j->str[j->slen++] = '\r'; break;
		case 't': j->str[j->slen++] = '\t'; break;
		case 'u':
			if (j->end - j->p < 4 || hex4(j->p, &cp) < 0)
				return -EINVAL;
			j->p += 4;
			if (cp >= 0xdc00 && cp <= 0xdfff)
				return -EINVAL;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u' ||
				    hex4(j->p + 2, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
					return -EINVAL;
				j->p += 6;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			if (cp == 0)
				return -EINVAL;
			put_utf8(j, cp);
			break;
		default:
			return -EINVAL;
		}
	}
	return -EINVAL;
}

static int literal(struct js *j, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n))
		return -EINVAL;
	j->p += n;
	return 0;
}

static bool digit(const struct js *j)
{
	return j->p < j->end && *j->p >= '0' && *j->p <= '9';
}

static int number(struct js *j)
{
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (!digit(j))
		return -EINVAL;
	if (*j->p == '0')
		j->p++;
	else
		while (digit(j))
			j->p++;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (!digit(j))
			return -EINVAL;
		while (digit(j))
			j->p++;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (!digit(j))
			return -EINVAL;
		while (digit(j))
			j->p++;
	}
	return 0;
}

static int value(struct js *j);

static int push(struct js *j, const char *key, size_t n)
{
	if (j->depth >= MCG__JSON_DEPTH_MAX)
		return -EINVAL;
	if (n > MCG__JSON_KEY_MAX)
		n = 0; /* matches nothing a caller looks for */
	memcpy(j->keybuf[j->depth], key, n);
	j->keybuf[j->depth][n] = '\0';
	j->keys[j->depth] = j->keybuf[j->depth];
	j->depth++;
	return 0;
}

static int object(struct js *j)
{
	int r;

	j->p++; /* '{' */
	ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		goto done;
	}
	for (;;) {
		ws(j);
		r = string(j);
		if (r < 0)
			return r;
		ws(j);
		if (j->p >= j->end || *j->p != ':')
			return -EINVAL;
		j->p++;
		r = push(j, j->str, j->slen);
		if (r < 0)
			return r;
		r = value(j);
		j->depth--;
		if (r)
			return r;
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == '}') {
			j->p++;
			break;
		}
		return -EINVAL;
	}
done:
	return j->fn(MCG__JSON_END, j->keys, j->depth, NULL, 0, j->data);
}

static int array(struct js *j)
{
	int r;

	j->p++; /* '[' */
	ws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		return 0;
	}
	for (;;) {
		r = push(j, "[]", 2);
		if (r < 0)
			return r;
		r = value(j);
		j->depth--;
		if (r)
			return r;
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == ']') {
			j->p++;
			return 0;
		}
		return -EINVAL;
	}
}

static int value(struct js *j)
{
	int r;

	ws(j);
	if (j->p >= j->end)
		return -EINVAL;
	switch (*j->p) {
	case '{':
		return object(j);
	case '[':
		return array(j);
	case '"':
		r = string(j);
		if (r < 0)
			return r;
		return j->fn(MCG__JSON_STRING, j->keys, j->depth, j->str, j->slen, j->data);
	case 't':
		return literal(j, "true");
	case 'f':
		return literal(j, "false");
	case 'n':
		return literal(j, "null");
	default:
		return number(j);
	}
}

int mcg__json_scan(const char *buf, size_t len, mcg__json_fn fn, void *data)
{
	struct js *j;
	int r;

	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->str = malloc(len + 1);
	if (!j->str) {
		free(j);
		return -ENOMEM;
	}
	j->p = buf;
	j->end = buf + len;
	j->fn = fn;
	j->data = data;
	r = value(j);
	if (r == 0) {
		ws(j);
		if (j->p != j->end)
			r = -EINVAL;
	}
	free(j->str);
	free(j);
	return r;
}
