package model

import (
	"net/netip"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/restoresim/restoresim/model/internal/javamap"
)

// This file models the hashCode of the StreamStateHandles a StreamHandle stands for. Flink keys
// a java.util.HashMap by them when it repartitions operator state
// (RoundRobinOperatorStateRepartitioner's HashMap<StreamStateHandle, OperatorStateHandle> per
// new subtask), so their hash codes decide the order in which a new subtask receives its
// operator-state handles (SPEC §E.3 step 5):
//
//   - ByteStreamStateHandle (InMemory): 31 * handleName.hashCode();
//   - FileStateHandle: filePath.hashCode(), i.e. the java.net.URI that Flink's Path(String)
//     builds: new URI(scheme, authority, normalizePath(path), null, null).normalize(), whose
//     hashCode hashes the scheme (ignoring case), the path, and the host (ignoring case),
//     user info and port of a server-based authority or else the authority itself, each
//     component in its quoted (raw) form, with '%' escapes compared case-insensitively;
//   - RelativeFileStateHandle (Relative): 17 * filePath.hashCode() + relativePath.hashCode().
//     The model keeps only the relative path of such a handle (StreamHandle.Path), not the
//     absolute filePath Flink resolves it to when it loads the checkpoint, so its hash code is
//     not known: the model uses the relative path in place of both (not Flink's value; the order
//     of relative handles among other handles of one new subtask is not modelled).
//
// A path Flink's Path constructor would refuse (it throws IllegalArgumentException, so Flink
// could not have built the handle) hashes as its String.hashCode.

// hashCode models StreamStateHandle.hashCode of the handle h stands for (see above).
func (h StreamHandle) hashCode() int32 {
	switch {
	case h.InMemory:
		return 31 * javamap.StringHashCode(h.Path)
	case h.Relative:
		return 17*flinkPathHashCode(h.Path) + javamap.StringHashCode(h.Path)
	}
	return flinkPathHashCode(h.Path)
}

// flinkPathHashCode models org.apache.flink.core.fs.Path.hashCode (URI.hashCode) of
// new Path(s); a string Path refuses hashes as String.hashCode.
func flinkPathHashCode(s string) int32 {
	u, err := flinkPathURI(s)
	if err != nil {
		return javamap.StringHashCode(s)
	}
	return u.hashCode()
}

// javaURI holds the components of a hierarchical java.net.URI that URI.hashCode reads, in their
// raw (quoted) form; a missing component is "" with its has flag false.
type javaURI struct {
	scheme, path string
	hasScheme    bool
	// A server-based authority has a host (and maybe user info and a port); a registry-based one
	// only the authority.
	authority, userInfo, host string
	hasAuthority, hasUserInfo bool
	hasHost                   bool
	port                      int
	// display and displayAuthority are the path and authority unquoted (getPath,
	// getAuthority): what Path.toString prints.
	display, displayAuthority string
}

// flinkPathURI builds the URI of new Path(s): Path(String) (a drive letter gets a leading
// slash; the scheme is the text before a ':' that comes before any '/'; an authority follows
// "//" up to the next '/'; normalizePath turns backslashes into slashes, collapses runs of
// slashes and drops a trailing one), then new URI(scheme, authority, path, null, null), which
// refuses a relative path after a scheme and quotes what is not legal in each component, parsed
// and normalize()d. An error stands for Path's IllegalArgumentException.
func flinkPathURI(s string) (javaURI, error) {
	if s == "" {
		return javaURI{}, errURISyntax("can not create a Path from an empty string")
	}
	if len(s) >= 2 && s[1] == ':' && isASCIILetter(s[0]) {
		s = "/" + s
	}
	u := javaURI{port: -1}
	start := 0
	colon, slash := strings.IndexByte(s, ':'), strings.IndexByte(s, '/')
	if colon != -1 && (slash == -1 || colon < slash) {
		u.scheme, u.hasScheme = s[:colon], true
		start = colon + 1
		if !validScheme(u.scheme) {
			return javaURI{}, errURISyntax("illegal character in scheme name")
		}
	}
	authority, hasAuthority := "", false
	if strings.HasPrefix(s[start:], "//") && len(s)-start > 2 {
		end := len(s)
		if next := strings.IndexByte(s[start+2:], '/'); next >= 0 {
			end = start + 2 + next
		}
		authority, hasAuthority = s[start+2:end], true
		start = end
	}
	path := flinkNormalizePath(s[start:])
	if u.hasScheme && path != "" && path[0] != '/' {
		return javaURI{}, errURISyntax("relative path in absolute URI")
	}
	if u.hasScheme && path == "" && !hasAuthority {
		return javaURI{}, errURISyntax("expected scheme-specific part")
	}
	u.path = uriNormalize(uriQuote(path, pathChars))
	u.display = uriNormalize(path)
	if hasAuthority && authority != "" { // an empty authority parses as none
		if err := u.parseAuthority(uriQuoteAuthority(authority)); err != nil {
			return javaURI{}, err
		}
		u.displayAuthority = authority
	}
	return u, nil
}

// flinkNormalizePath models Path.normalizePath: backslashes become slashes, runs of slashes
// collapse, and a trailing slash goes unless the path is "/" or a drive root such as "/C:/".
func flinkNormalizePath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '/' && i > 0 && p[i-1] == '/' {
			continue
		}
		b.WriteByte(p[i])
	}
	p = b.String()
	if strings.HasSuffix(p, "/") && p != "/" && !isDriveRoot(p) {
		p = p[:len(p)-1]
	}
	return p
}

// isDriveRoot matches Path's WINDOWS_ROOT_DIR_REGEX, "/\p{Alpha}+:/".
func isDriveRoot(p string) bool {
	if len(p) < 4 || p[0] != '/' || !strings.HasSuffix(p, ":/") {
		return false
	}
	for i := 1; i < len(p)-2; i++ {
		if !isASCIILetter(p[i]) {
			return false
		}
	}
	return true
}

// uriNormalize models URI.normalize of a path (RFC 2396 5.2 step 6 as java.net.URI does it):
// "." segments go; a ".." goes with the kept segment before it unless that is "..", and stays
// when there is none (also at the root: "/.." stays); a segment keeps the slash that followed
// it; a relative path whose first kept segment holds a ':' after segments were removed gets a
// leading "./".
func uriNormalize(ps string) string {
	if !needsNormalization(ps) {
		return ps
	}
	abs := strings.HasPrefix(ps, "/")
	body := strings.TrimLeft(ps, "/")
	normal := len(ps)-len(body) <= 1
	type seg struct {
		text  string
		slash bool
		keep  bool
	}
	var segs []seg
	for body != "" {
		i := strings.IndexByte(body, '/')
		if i < 0 {
			segs = append(segs, seg{text: body, keep: true})
			break
		}
		rest := strings.TrimLeft(body[i:], "/")
		if len(body)-i-len(rest) > 1 {
			normal = false
		}
		segs = append(segs, seg{text: body[:i], slash: true, keep: true})
		body = rest
	}
	for _, sg := range segs {
		if sg.text == "." || sg.text == ".." {
			normal = false
		}
	}
	if normal {
		return ps
	}
	for i := range segs {
		switch segs[i].text {
		case ".":
			segs[i].keep = false
		case "..":
			j := i - 1
			for j >= 0 && !segs[j].keep {
				j--
			}
			if j >= 0 && segs[j].text != ".." {
				segs[i].keep, segs[j].keep = false, false
			}
		}
	}
	var b strings.Builder
	if abs {
		b.WriteByte('/')
	} else {
		f := 0
		for f < len(segs) && !segs[f].keep {
			f++
		}
		if f > 0 && f < len(segs) && strings.Contains(segs[f].text, ":") {
			b.WriteString("./")
		}
	}
	for _, sg := range segs {
		if sg.keep {
			b.WriteString(sg.text)
			if sg.slash {
				b.WriteByte('/')
			}
		}
	}
	return b.String()
}

// hashCode models URI.hashCode for a hierarchical URI without query and fragment.
func (u javaURI) hashCode() int32 {
	var h int32
	if u.hasScheme {
		h = uriHashIgnoringCase(0, u.scheme)
	}
	h = uriHash(h, u.path)
	switch {
	case u.hasHost:
		if u.hasUserInfo {
			h = uriHash(h, u.userInfo)
		}
		h = uriHashIgnoringCase(h, u.host)
		h += int32(1949 * u.port)
	case u.hasAuthority:
		h = uriHash(h, u.authority)
	}
	return h
}

// uriHash models URI.hash(int, String): String.hashCode mixed in, or normalizedHash when s holds
// a '%' escape (the two characters after each '%' upper-cased).
func uriHash(h int32, s string) int32 {
	if !strings.Contains(s, "%") {
		return h*127 + javamap.StringHashCode(s)
	}
	units := utf16.Encode([]rune(s))
	var n int32
	for i := 0; i < len(units); i++ {
		n = 31*n + int32(units[i])
		if units[i] == '%' {
			for j := i + 1; j < i+3 && j < len(units); j++ {
				n = 31*n + int32(asciiUpper(units[j]))
			}
			i += 2
		}
	}
	return h*127 + n
}

// uriHashIgnoringCase models URI.hashIgnoringCase: 31*h + the ASCII-lower-cased code units.
func uriHashIgnoringCase(h int32, s string) int32 {
	for _, c := range utf16.Encode([]rune(s)) {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		h = 31*h + int32(c)
	}
	return h
}

func asciiUpper(c uint16) uint16 {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// The ASCII characters URI's multi-argument constructor leaves unquoted in a component
// (java.net.URI's L_/H_ masks): unreserved = alphanumerics and "-_.!~*'()".
const (
	uriUnreserved = "-_.!~*'()"
	// pathChars is L_PATH: pchar (unreserved, ":@&=+$,") and ";/".
	pathChars = uriUnreserved + ":@&=+$," + ";/"
	// authorityChars is L_REG_NAME | L_SERVER: unreserved, "$,;:@&=+" and "[]".
	authorityChars = uriUnreserved + "$,;:@&=+" + "[]"
	// userInfoChars is L_USERINFO: unreserved and ";:&=+$,".
	userInfoChars = uriUnreserved + ";:&=+$,"
)

func isAlnum(c rune) bool {
	return c < utf8.RuneSelf && (isASCIILetter(byte(c)) || '0' <= c && c <= '9')
}

// uriQuote models URI.quote(s, mask) for a component that allows escapes: an ASCII character
// outside the mask (and '%', which these constructors always quote) becomes %XX; a non-ASCII
// space or control character becomes its UTF-8 bytes as %XX; other characters stay.
func uriQuote(s, allowed string) string {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := rune(s[i])
		plain = c < utf8.RuneSelf && c != '%' && (isAlnum(c) || strings.ContainsRune(allowed, c))
	}
	if plain {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && r != '%' && (isAlnum(r) || strings.ContainsRune(allowed, r)):
			b.WriteRune(r)
		case r < utf8.RuneSelf || unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp) || (0x80 <= r && r <= 0x9f):
			var buf [utf8.UTFMax]byte
			for _, c := range buf[:utf8.EncodeRune(buf[:], r)] {
				b.WriteByte('%')
				b.WriteString(strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// uriQuoteAuthority models the multi-argument constructor's appendAuthority: an authority
// starting with an IPv6 literal "[...]" keeps the literal as it is and quotes the rest.
func uriQuoteAuthority(a string) string {
	if strings.HasPrefix(a, "[") {
		if end := strings.IndexByte(a, ']'); end != -1 && strings.Contains(a, ":") {
			return a[:end+1] + uriQuote(a[end+1:], authorityChars)
		}
	}
	return uriQuote(a, authorityChars)
}

// errURISyntax stands for the URISyntaxException Path's constructor turns into an
// IllegalArgumentException.
type errURISyntax string

func (e errURISyntax) Error() string { return string(e) }

// parseAuthority models URI.Parser.parseAuthority for the quoted authority a: server-based when
// it parses as [user-info@]host[:port] (host: an IPv4 address, a host name or an IPv6 literal),
// else registry-based when all its characters are legal there, else a syntax error.
func (u *javaURI) parseAuthority(a string) error {
	registry := !strings.ContainsAny(a, "[]")
	if err := u.parseServer(a); err == nil {
		u.authority, u.hasAuthority = a, true
		return nil
	} else if !registry {
		return err
	}
	u.userInfo, u.hasUserInfo, u.host, u.hasHost, u.port = "", false, "", false, -1
	u.authority, u.hasAuthority = a, true
	return nil
}

// parseServer models URI.Parser.parseServer.
func (u *javaURI) parseServer(a string) error {
	p := 0
	if at := strings.IndexAny(a, "/?#@"); at >= 0 && a[at] == '@' {
		for _, r := range a[:at] {
			if !(r >= utf8.RuneSelf || r == '%' || isAlnum(r) || strings.ContainsRune(userInfoChars, r)) {
				return errURISyntax("illegal character in user info")
			}
		}
		u.userInfo, u.hasUserInfo = a[:at], true
		p = at + 1
	}
	rest := a[p:]
	var hostEnd int
	switch {
	case strings.HasPrefix(rest, "["):
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return errURISyntax("expected a closing bracket for an IPv6 address")
		}
		if addr, err := netip.ParseAddr(rest[1:end]); err != nil || !addr.Is6() || addr.Zone() != "" {
			return errURISyntax("malformed IPv6 address")
		}
		hostEnd = end + 1
	default:
		hostEnd = scanIPv4(rest)
		if hostEnd <= 0 {
			var err error
			if hostEnd, err = scanHostname(rest); err != nil {
				return err
			}
		}
	}
	u.host, u.hasHost = rest[:hostEnd], true
	rest = rest[hostEnd:]
	if strings.HasPrefix(rest, ":") {
		rest = rest[1:]
		d := 0
		for d < len(rest) && '0' <= rest[d] && rest[d] <= '9' {
			d++
		}
		if d > 0 {
			port, err := strconv.ParseInt(rest[:d], 10, 32)
			if err != nil {
				return errURISyntax("malformed port number")
			}
			u.port = int(port)
		}
		rest = rest[d:]
	}
	if rest != "" {
		return errURISyntax("expected a port number")
	}
	return nil
}

// scanIPv4 models URI.Parser.parseIPv4Address: the length of a dotted-quad address of bytes
// (at most 255 each) at the start of s when it is followed by nothing or ':', else -1.
func scanIPv4(s string) int {
	m := 0
	for m < len(s) && ('0' <= s[m] && s[m] <= '9' || s[m] == '.') {
		m++
	}
	if m == 0 {
		return -1
	}
	p := 0
	for k := range 4 {
		q := p
		for q < m && '0' <= s[q] && s[q] <= '9' {
			q++
		}
		if q == p {
			return -1
		}
		n, err := strconv.ParseInt(s[p:q], 10, 32)
		if err != nil || n > 255 {
			return -1
		}
		p = q
		if k < 3 {
			if p >= m || s[p] != '.' {
				return -1
			}
			p++
		}
	}
	if p < m {
		return -1
	}
	if p < len(s) && s[p] != ':' {
		return -1
	}
	return p
}

// scanHostname models URI.Parser.parseHostname: labels of alphanumerics and inner dashes
// separated by dots; the last label of a name with several starts with a letter; the name must
// be followed by nothing or ':'.
func scanHostname(s string) (int, error) {
	p, last := 0, -1
	for p < len(s) {
		q := p
		for q < len(s) && isAlnum(rune(s[q])) {
			q++
		}
		if q == p {
			break
		}
		last, p = p, q
		for q < len(s) && (isAlnum(rune(s[q])) || s[q] == '-') {
			q++
		}
		if q > p {
			if s[q-1] == '-' {
				return 0, errURISyntax("illegal character in host name")
			}
			p = q
		}
		if p >= len(s) || s[p] != '.' {
			break
		}
		p++
	}
	if p < len(s) && s[p] != ':' {
		return 0, errURISyntax("illegal character in host name")
	}
	if last < 0 {
		return 0, errURISyntax("expected a host name")
	}
	if last > 0 && !isASCIILetter(s[last]) {
		return 0, errURISyntax("illegal character in host name")
	}
	return p, nil
}

// needsNormalization models URI.needsNormalization: a run of slashes, or a "." or ".." segment.
func needsNormalization(ps string) bool {
	if strings.Contains(ps, "//") {
		return true
	}
	for seg := range strings.SplitSeq(ps, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// NormalizeFlinkPath models new Path(s).toString(): the path as Flink prints a FileStateHandle's
// file after building it from s ("file:///x/./y/" is "file:/x/y"). The error stands for the
// IllegalArgumentException of Path's constructor.
func NormalizeFlinkPath(s string) (string, error) {
	u, err := flinkPathURI(s)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if u.hasScheme {
		b.WriteString(u.scheme + ":")
	}
	if u.hasAuthority {
		b.WriteString("//" + u.displayAuthority)
	}
	p := u.display
	if !u.hasScheme && !u.hasAuthority && len(p) >= 3 && p[0] == '/' && p[2] == ':' && isASCIILetter(p[1]) {
		p = p[1:] // Path.toString drops the slash before a drive letter
	}
	b.WriteString(p)
	return b.String(), nil
}
