package symbolize

//go:generate sh -c "cd testdata && sh gen.sh"
