# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import os
import tempfile

import kbtest as kb

TMP = tempfile.mkdtemp(prefix="csvsum-")
_count = [0]


def write_csv(text):
    _count[0] += 1
    path = os.path.join(TMP, "data%d.csv" % _count[0])
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    return path


def total_of(text, want, what):
    rc, out, err = kb.run(["python3", "csvsum.py", write_csv(text)])
    kb.eq(rc, 0, "%s: exit status (stderr %r)" % (what, err[-300:]))
    kb.eq(out.strip(), want, "%s: printed total" % what)
    kb.eq(len(out.strip().splitlines()), 1, "%s: number of stdout lines" % what)


@kb.case
def plain_file():
    text = "id,amount,note\n1,10.00,a\n2,2.5,b\n3,-1.25,c\n"
    total_of(text, "11.25", "plain file")


@kb.case
def quoted_fields_with_commas():
    text = ('date,description,amount,currency\n'
            '2024-02-01,"Chair, oak",120.00,EUR\n'
            '2024-02-02,"Lamp, ""brass"", tall",35.5,EUR\n'
            '2024-02-03,Pens,4.25,EUR\n'
            '2024-02-04,"a,b,c,d,e",-10,EUR\n')
    total_of(text, "149.75", "quoted descriptions")


@kb.case
def quoted_amounts_and_integers():
    text = 'amount,who\n"7.25",x\n12,y\n"-0.5","z, w"\n'
    total_of(text, "18.75", "quoted amounts")


@kb.case
def blank_lines_ignored():
    total_of("name,amount\nx,1.10\n\ny,2.20\n\n\n", "3.30", "blank lines in the middle and at the end")
    total_of("name,amount\nx,1.10\n   \ny,2.20\n  \n", "3.30", "whitespace-only lines")
    total_of("name,amount\nx,1.10\ny,2.20", "3.30", "no line break after the last row")


@kb.case
def amount_in_any_column_and_crlf():
    total_of("amount,a,b\r\n5,x,y\r\n6.5,x,y\r\n", "11.50", "first column, CRLF")
    total_of("a,b,amount\r\nx,y,0.1\r\nx,y,0.2\r\n", "0.30", "last column, CRLF")
    total_of('a,"b, c",amount\nx,"y, z",100\n', "100.00", "quoted comma in the header")


@kb.case
def header_only_gives_zero():
    total_of("date,amount\n", "0.00", "header only")
    total_of("date,amount", "0.00", "header only, no line break")


@kb.case
def missing_amount_column():
    for text, what in [("date,total\n2024-01-01,5\n", "no amount column"),
                       ("date,Amount\n2024-01-01,5\n", "Amount with a capital A"),
                       ("date, amount\n2024-01-01, 5\n", "header cell ' amount' with a leading space"),
                       ("", "empty file")]:
        rc, out, err = kb.run(["python3", "csvsum.py", write_csv(text)])
        kb.eq(rc, 1, "%s: exit status" % what)
        kb.eq(out, "", "%s: stdout must be empty" % what)
        kb.ok(err.strip() != "", "%s: an error message on stderr" % what)


@kb.case
def quoted_field_with_line_breaks():
    text = ('id,note,amount\n'
            '1,"first line\nsecond line",4.50\n'
            '2,"a, b\r\nand ""c""\n",1.25\n'
            '3,plain,-0.75\n')
    total_of(text, "5.00", "quoted notes that span several lines")


@kb.case
def zero_total_has_no_sign():
    total_of("amount\n-0.10\n-0.20\n0.30\n", "0.00", "amounts that cancel out")
    total_of("amount,x\n-1.10,a\n-2.20,b\n3.30,c\n", "0.00", "amounts that cancel out, two columns")
    total_of("amount\n-0.1\n-0.2\n0.25\n", "-0.05", "a small negative total")


kb.main()
