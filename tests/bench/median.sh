# Sourced by the benchmark scripts: `median` prints the median of the numbers on its
# standard input (separated by spaces or newlines), or nothing when there are none.
median() {
  tr ' ' '\n' | grep -v '^$' | sort -g |
    awk '{a[NR]=$1} END { if (NR == 0) print ""; else if (NR % 2) print a[(NR+1)/2]; else printf "%.1f\n", (a[NR/2]+a[NR/2+1])/2 }'
}
