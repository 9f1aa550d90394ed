# Sourced by the make.sh scripts of tests/golden: golden_new G is true when
# golden file G (TOOL/NAME, under tests/golden as G.gz) does not exist yet,
# after unpacking the existing ones into build/golden; golden_keep G keeps
# build/golden/G, just written by the CPU reference, as tests/golden/G.gz.
sh tests/golden/unpack.sh || exit 1
golden_new() { ! [ -e "tests/golden/$1.gz" ]; }
golden_keep() {
	gzip -9nc "build/golden/$1" >"tests/golden/$1.gz.tmp" &&
	    mv "tests/golden/$1.gz.tmp" "tests/golden/$1.gz" && echo "wrote tests/golden/$1.gz"
}
